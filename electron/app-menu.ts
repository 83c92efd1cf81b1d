import type { MenuItemConstructorOptions } from 'electron';

/**
 * The application menu. Electron's default one carries Developer Tools (a console that runs script in the
 * signed-in window with its tokens) and reloads; a packaged app shows only editing, zoom and window items.
 * A development run (`!packaged`) keeps the developer items.
 */
export function appMenuTemplate(platform: NodeJS.Platform, packaged: boolean): MenuItemConstructorOptions[] {
  const developer: MenuItemConstructorOptions[] = packaged
    ? []
    : [{ type: 'separator' }, { role: 'reload' }, { role: 'forceReload' }, { role: 'toggleDevTools' }];
  return [
    ...(platform === 'darwin' ? [{ role: 'appMenu' } as const] : []),
    { role: 'fileMenu' },
    // Copy, paste and their shortcuts live in the Edit menu (macOS has no shortcuts without it).
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
        ...developer,
      ],
    },
    { role: 'windowMenu' },
  ];
}

/** Every role in a menu template, submenus included (what the tests look for). */
export function menuRoles(template: readonly MenuItemConstructorOptions[]): string[] {
  return template.flatMap((item) => [
    ...(item.role ? [item.role] : []),
    ...(Array.isArray(item.submenu) ? menuRoles(item.submenu) : []),
  ]);
}
