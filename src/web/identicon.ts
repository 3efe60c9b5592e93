/**
 * Avatars on the pages. With `--gravatar` the URL the APIs return for the user (an uploaded avatar
 * or Gravatar's), else an identicon drawn here: a 5×5 grid mirrored left to right, its cells and
 * colour taken from a hash of the user id, as inline SVG (no request leaves the server, and the
 * same user gets the same picture on every page and every instance).
 */
import { createHash } from 'node:crypto';
import { avatarUrl } from '../domain/links.js';
import type { UserView } from '../services/views.js';
import { type Html, html, trusted } from './html.js';

const SIZE = 5;
/** Columns drawn from the hash; the others mirror them. */
const HALF = Math.ceil(SIZE / 2);

/** `#rrggbb` of a hue at the saturation and lightness identicons use (readable on white). */
function colour(hue: number): string {
  const s = 0.55;
  const l = 0.5;
  const f = (n: number) => {
    const k = (n + hue / 30) % 12;
    const c = l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(c * 255)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${f(0)}${f(8)}${f(4)}`;
}

/** The SVG markup of a user's identicon; a function of `seed` alone. */
export function identiconSvg(seed: string): string {
  const hash = createHash('sha256').update(`identicon:${seed}`).digest();
  const hue = ((hash[0]! << 8) | hash[1]!) % 360;
  let path = '';
  for (let column = 0; column < HALF; column++) {
    for (let row = 0; row < SIZE; row++) {
      // One bit per cell of the drawn half, from byte 2 on.
      const bit = column * SIZE + row;
      if (((hash[2 + (bit >> 3)]! >> (bit & 7)) & 1) === 0) continue;
      path += `M${column} ${row}h1v1h-1z`;
      const mirror = SIZE - 1 - column;
      if (mirror !== column) path += `M${mirror} ${row}h1v1h-1z`;
    }
  }
  return (
    `<svg class="avatar identicon" viewBox="-0.5 -0.5 ${SIZE + 1} ${SIZE + 1}" ` +
    `width="32" height="32" aria-hidden="true" shape-rendering="crispEdges">` +
    `<rect x="-0.5" y="-0.5" width="${SIZE + 1}" height="${SIZE + 1}" fill="#f0f0f0"/>` +
    `<path fill="${colour(hue)}" d="${path}"/></svg>`
  );
}

/** How a page draws avatars: the instance's `--gravatar` setting. */
export interface AvatarStyle {
  gravatar: boolean;
}

/** A user's avatar; a deleted user (null) gets a blank disc. */
export function avatar(user: UserView | null, style: AvatarStyle): Html {
  if (!user) return html`<span class="avatar" aria-hidden="true"></span>`;
  if (style.gravatar) {
    return html`<img
      class="avatar"
      src="${avatarUrl(user)}"
      alt=""
      width="32"
      height="32"
      loading="lazy"
      referrerpolicy="no-referrer"
    />`;
  }
  return trusted(identiconSvg(`user:${user.id}`));
}

/**
 * What a page's `img-src` adds for avatars: Gravatar's and uploaded avatars are on other origins
 * (any, for an uploaded one), and rows arriving later may bring new ones.
 */
export function avatarImageSources(style: AvatarStyle): readonly string[] {
  return style.gravatar ? ['https:'] : [];
}
