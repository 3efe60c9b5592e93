/** The row id a page's path names (`:id`), or null when it names none (the page answers 404). */
export function pathId(params: unknown): number | null {
  const raw = (params as { id?: string }).id ?? '';
  return /^\d{1,9}$/.test(raw) ? Number(raw) : null;
}
