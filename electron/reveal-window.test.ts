import { describe, expect, it } from 'vitest';
import { revealWindow, type RevealableWindow } from './reveal-window.ts';

function fakeWindow(state: { minimized?: boolean; destroyed?: boolean }) {
  const calls: string[] = [];
  const window: RevealableWindow = {
    isDestroyed: () => state.destroyed ?? false,
    isMinimized: () => state.minimized ?? false,
    restore: () => calls.push('restore'),
    show: () => calls.push('show'),
    focus: () => calls.push('focus'),
  };
  return { window, calls };
}

describe('a second launch', () => {
  it('shows a hidden window and restores a minimized one', () => {
    const hidden = fakeWindow({});
    expect(revealWindow(hidden.window, () => expect.fail('no new window'))).toBe('revealed');
    expect(hidden.calls).toEqual(['show', 'focus']);
    const minimized = fakeWindow({ minimized: true });
    revealWindow(minimized.window, () => expect.fail('no new window'));
    expect(minimized.calls).toEqual(['restore', 'show', 'focus']);
  });

  it('opens a new window when the last one was closed to the tray', () => {
    let opened = 0;
    expect(revealWindow(null, () => opened++)).toBe('opened');
    expect(revealWindow(fakeWindow({ destroyed: true }).window, () => opened++)).toBe('opened');
    expect(opened).toBe(2);
  });
});
