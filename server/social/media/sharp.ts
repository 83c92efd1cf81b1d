import type Sharp from 'sharp';

let loading: Promise<typeof Sharp> | null = null;

/** sharp and libvips (about 25 MiB resident) load at the first image work, not at start. */
export function loadSharp(): Promise<typeof Sharp> {
  loading ??= import('sharp').then((m) => m.default);
  return loading;
}
