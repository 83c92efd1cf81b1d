import { execFileSync, fork } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import dns2 from 'dns2';
import { DNS_SERVER_ADDRESS, type NamespaceConfig, RESULT_MARK } from './netns.ts';

/*
 * Runs inside the fresh namespace (started by runInNamespace through unshare): brings `lo` up with the test
 * addresses, mounts the generated /etc/hosts and /etc/resolv.conf, serves DNS on 127.0.0.53, runs the
 * script with an IPC channel, and prints one line for the test: the script's report and the DNS questions.
 */

const config = JSON.parse(fs.readFileSync(process.argv[2], 'utf8')) as NamespaceConfig;

execFileSync('ip', ['link', 'set', 'lo', 'up']);
for (const address of config.addresses)
  execFileSync('ip', ['addr', 'add', `${address}/${net.isIPv6(address) ? 128 : 32}`, 'dev', 'lo']);
execFileSync('mount', ['--bind', config.hostsFile, '/etc/hosts']);
execFileSync('mount', ['--bind', config.resolvFile, '/etc/resolv.conf']);

const dnsQueries: { name: string; type: string }[] = [];
const asked = new Map<string, number>();
const { Packet } = dns2;
const server = dns2.createServer({
  udp: true,
  handle: (request, send) => {
    const response = Packet.createResponseFromRequest(request);
    const [question] = request.questions;
    const name = question.name.toLowerCase();
    const type = question.type === Packet.TYPE.A ? 'A' : question.type === Packet.TYPE.AAAA ? 'AAAA' : 'other';
    dnsQueries.push({ name, type: type === 'other' ? String(question.type) : type });
    const sets = config.dns[name];
    if (!sets || sets.length === 0) {
      response.header.rcode = Packet.RCODE.NXDOMAIN;
      return send(response);
    }
    // Each type counts its own questions: getaddrinfo asks A and AAAA for one lookup.
    const key = `${name} ${type}`;
    const n = asked.get(key) ?? 0;
    asked.set(key, n + 1);
    const family = type === 'A' ? 4 : type === 'AAAA' ? 6 : 0;
    for (const address of sets[Math.min(n, sets.length - 1)].filter((a) => net.isIP(a) === family))
      response.answers.push(
        Packet.createResourceFromQuestion(question, {
          type: family === 4 ? Packet.TYPE.A : Packet.TYPE.AAAA,
          ttl: 0,
          address,
        }),
      );
    send(response);
  },
});
await server.listen({ udp: { port: 53, address: DNS_SERVER_ADDRESS } });

let result: { value: unknown } | null = null;
const script = fork(config.script, [], {
  env: { ...process.env, ...config.env, HOMEPORT_NETNS: JSON.stringify(config.context) },
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
script.on('message', (value) => {
  result = { value };
});
const code = await new Promise<number>((resolve) =>
  script.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 128 : 1))),
);
await server.close();
if (code !== 0 || !result) {
  process.stderr.write(
    `the namespace script ${config.script} exited with ${code}${result ? '' : ' without a report'}\n`,
  );
  process.exit(code || 1);
}
process.stdout.write(`${RESULT_MARK}${JSON.stringify({ result: (result as { value: unknown }).value, dnsQueries })}\n`);
