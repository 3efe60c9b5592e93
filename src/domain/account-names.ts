/**
 * What makes a username or an e-mail address acceptable: one rule for accounts created on the
 * command line and for users arriving in an import file.
 */

const USERNAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function isUsername(value: string): boolean {
  return value.length <= 255 && USERNAME.test(value) && !value.endsWith('.');
}

export function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value);
}
