import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

/**
 * axe-core's violations on the page as it is, once settled (loaded data, no spinner), one line each. Best-practice
 * rules run too, and label-content-name-mismatch (axe marks it experimental) is switched on, as the issue measured it.
 */
export async function axeViolations(page: Page, view: string): Promise<string[]> {
  await expect(page.getByRole('status').filter({ hasText: 'Loading…' })).toHaveCount(0);
  const results = await new AxeBuilder({ page })
    .options({ rules: { 'label-content-name-mismatch': { enabled: true } } })
    .analyze();
  return results.violations.map(
    (v) => `${view}: ${v.id} (${v.nodes.length}) ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`,
  );
}
