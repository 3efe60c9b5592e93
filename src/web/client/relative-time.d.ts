/** Types of relative-time.js (plain JavaScript: the browser bundle and the server share it). */
export function relativeTime(then: number, now: number): string;
export function exactTime(then: number): string;
