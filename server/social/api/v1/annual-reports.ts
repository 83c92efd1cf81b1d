// https://docs.joinmastodon.org/methods/annual_reports/
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SocialContext } from '../../context.ts';
import { AnnualReports } from '../../domain/index.ts';
import { presentAnnualReports } from '../../entities/index.ts';
import { notFound } from '../../errors.ts';
import { auth, currentUser } from '../../http/index.ts';
import type { Account, AnnualReportRow } from '../../store/index.ts';

export function annualReportRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const reports = new AnnualReports(ctx.store);
  const present = (account: Account, rows: AnnualReportRow[]) =>
    presentAnnualReports(ctx.store, ctx.presenter, ctx.statusPresenter, rows, account);
  const year = (req: FastifyRequest) => {
    const text = (req.params as { year: string }).year;
    if (!/^\d{4}$/.test(text)) throw notFound();
    return Number(text);
  };

  app.get('/api/v1/annual_reports', { config: { auth: auth.user('read:accounts') } }, async (req) => {
    const { account } = currentUser(req);
    return present(account, reports.list(account));
  });

  app.get('/api/v1/annual_reports/:year', { config: { auth: auth.user('read:accounts') } }, async (req) => {
    const { account } = currentUser(req);
    return present(account, [reports.get(account, year(req))]);
  });

  app.get('/api/v1/annual_reports/:year/state', { config: { auth: auth.user('read:accounts') } }, async (req) => ({
    state: reports.state(currentUser(req).account, year(req)),
  }));

  // Generated within the request: the answer is 200 with the report available (or the year ineligible), never 202.
  app.post('/api/v1/annual_reports/:year/generate', { config: { auth: auth.user('write:accounts') } }, async (req) => {
    reports.generate(currentUser(req).account, year(req));
    return {};
  });

  app.post('/api/v1/annual_reports/:year/read', { config: { auth: auth.user('write:accounts') } }, async (req) => {
    reports.markRead(currentUser(req).account, year(req));
    return {};
  });
}
