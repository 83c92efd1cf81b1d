/** The table bench/eventlog-grpc.ts prints: each scenario's rates and CPU per event through TCP and gRPC. */
import os from 'node:os';
import type { Measured } from './scenarios.ts';

export interface Row {
  scenario: string;
  tcp?: number;
  grpc: number;
  /** The Homeport server process's CPU (user + system) per event over the measured window, µs. */
  tcpCpu?: number;
  grpcCpu?: number;
  clientLimit?: number;
  /** The ack server's CPU per event: grpc-js and HTTP/2 alone, nothing stored or read. */
  bareCpu?: number;
  p50?: number;
  p99?: number;
}

export function ackLimit(limit: Measured): Pick<Row, 'clientLimit' | 'bareCpu'> {
  return { clientLimit: limit.rate, bareCpu: limit.cpu };
}

export function both(tcp: Measured, grpc: Measured): Pick<Row, 'tcp' | 'grpc' | 'tcpCpu' | 'grpcCpu'> {
  return { tcp: tcp.rate, grpc: grpc.rate, tcpCpu: tcp.cpu, grpcCpu: grpc.cpu };
}

export function printTable(rows: Row[]): void {
  const headers = [
    'scenario',
    'TCP ev/s',
    'gRPC ev/s',
    'gRPC/TCP',
    'gRPC client limit',
    'TCP µs/ev',
    'gRPC µs/ev',
    'bare grpc-js µs/ev',
    'gRPC p50',
    'gRPC p99',
  ];
  const fmt = (n: number | undefined) => (n === undefined ? '' : Math.round(n).toLocaleString('en-US'));
  const cells = rows.map((r) => [
    r.scenario,
    fmt(r.tcp),
    fmt(r.grpc),
    r.tcp ? `${Math.round((r.grpc / r.tcp) * 100)}%` : '',
    fmt(r.clientLimit),
    r.tcpCpu === undefined ? '' : r.tcpCpu.toFixed(1),
    r.grpcCpu === undefined ? '' : r.grpcCpu.toFixed(1),
    r.bareCpu === undefined ? '' : r.bareCpu.toFixed(1),
    r.p50 === undefined ? '' : r.p50.toFixed(2),
    r.p99 === undefined ? '' : r.p99.toFixed(2),
  ]);
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => c.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  ');
  console.log(line(headers));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const c of cells) console.log(line(c));
  console.log(
    `µs/ev: the server process's CPU (user + system) per event or delivery (bare grpc-js: the ack server, cleartext); load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}
