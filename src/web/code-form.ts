/**
 * A page that asks for one code and nothing else (a device's user code, a second factor): a narrow
 * card with a lead, the errors, and a form of one required, focused field and one button.
 */
import { type Html, type Nav, csrfField, html, layout, messages } from './html.js';

export interface CodeForm {
  title: string;
  lead: string;
  action: string;
  csrf: string;
  errors: string[];
  /** The input's attributes besides `required autofocus`: its name, value and input hints. */
  input: Html;
  submit: string;
  nav?: Nav | null;
}

export function codeFormPage(form: CodeForm): Html {
  return layout(
    form.title,
    html`<section class="card narrow">
      <h1>${form.title}</h1>
      <p>${form.lead}</p>
      ${messages(form.errors)}
      <form method="post" action="${form.action}">
        ${csrfField(form.csrf)}
        <label>Code <input ${form.input} required autofocus /></label>
        <button type="submit" class="primary">${form.submit}</button>
      </form>
    </section>`,
    form.nav ?? null,
  );
}
