/**
 * A listing table that stacks into labelled cards on a narrow screen: every cell carries its
 * column's name as `data-label` (style.css shows it in place of the header), so the two cannot
 * drift apart. An optional last column holds the row's actions.
 */
import { type Html, html } from './html.js';

export interface StackColumn<T> {
  label: string;
  cell: (row: T) => unknown;
}

export function stackTable<T>(
  columns: readonly StackColumn<T>[],
  rows: readonly T[],
  actions?: (row: T) => unknown,
): Html {
  return html`<table class="list stack">
    <thead>
      <tr>
        ${columns.map((c) => html`<th>${c.label}</th>`)}${actions ? html`<th></th>` : ''}
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        (row) =>
          html`<tr>
            ${columns.map((c) => html`<td data-label="${c.label}">${c.cell(row)}</td>`)}
            ${actions ? html`<td class="row-actions">${actions(row)}</td>` : ''}
          </tr>`,
      )}
    </tbody>
  </table>`;
}
