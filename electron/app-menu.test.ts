import { describe, expect, it } from 'vitest';
import { appMenuTemplate, menuRoles } from './app-menu.ts';

const DEVELOPER_ROLES = ['toggleDevTools', 'reload', 'forceReload'];

describe('application menu', () => {
  it('has no Developer Tools or reloads in a packaged app, on every platform', () => {
    for (const platform of ['linux', 'win32', 'darwin'] as const) {
      const roles = menuRoles(appMenuTemplate(platform, true));
      for (const role of DEVELOPER_ROLES) expect(roles, platform).not.toContain(role);
      // The default View menu role would bring them back.
      expect(roles).not.toContain('viewMenu');
      expect(roles).toContain('editMenu');
    }
    expect(menuRoles(appMenuTemplate('darwin', true))).toContain('appMenu');
  });

  it('keeps them for a development run', () => {
    expect(menuRoles(appMenuTemplate('linux', false))).toEqual(expect.arrayContaining(DEVELOPER_ROLES));
  });
});
