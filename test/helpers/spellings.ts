// The spellings a server may echo a secret in, for the redaction tests of the harness and the command.

/** A key full of characters that every encoding treats differently. */
export const SPECIAL_KEY = `k/é+ &"<>'=?\\%:~`;

const unicodeEscape = (c: string) =>
  [...Array(c.length).keys()].map((i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');

/** name → the secret as that spelling writes it. */
export function spellingsOf(key: string): Record<string, string> {
  const json = JSON.stringify(key).slice(1, -1);
  const percent = encodeURIComponent(key);
  const xml = (entities: Record<string, string>) => key.replace(/[&<>"']/g, (c) => entities[c]!);
  return {
    'as is': key,
    'percent-encoded': percent,
    'percent-encoded, lower-case hex': percent.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    'percent-encoded as new URL() does a query': new URL(`http://h/?${key}`).search.slice(1),
    'percent-encoded twice': encodeURIComponent(percent),
    'form-encoded': new URLSearchParams([['k', key]]).toString().slice(2),
    'JSON-escaped': json,
    'JSON-escaped with \\/': json.replace(/\//g, '\\/'),
    'JSON-escaped with \\uXXXX for non-ASCII': json.replace(/[^\x20-\x7e]/g, unicodeEscape),
    'JSON-escaped with \\uXXXX for <, >, &': json.replace(/[<>&']/g, unicodeEscape),
    'JSON-escaped, upper-case \\uXXXX': json.replace(/[^\x20-\x7e]/g, (c) =>
      unicodeEscape(c).toUpperCase().replace('\\U', '\\u'),
    ),
    'JSON-escaped twice': JSON.stringify(json).slice(1, -1),
    'XML-escaped': xml({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' }),
    'XML-escaped with character references': xml({
      '&': '&#38;',
      '<': '&#x3C;',
      '>': '&#x3e;',
      '"': '&#34;',
      "'": '&#39;',
    }),
    'XML-escaped twice': xml({
      '&': '&amp;amp;',
      '<': '&amp;lt;',
      '>': '&amp;gt;',
      '"': '&amp;quot;',
      "'": '&amp;apos;',
    }),
    base64: Buffer.from(key).toString('base64'),
    base64url: Buffer.from(key).toString('base64url'),
    'base64 of user:key (Basic)': Buffer.from(`user:${key}`).toString('base64'),
    'base64 at the third alignment': Buffer.from(`ab${key}!`).toString('base64'),
    'base64url at the second alignment': Buffer.from(`a${key}`).toString('base64url'),
    'in a single-quoted shell word': key.replace(/'/g, `'\\''`),
    'UTF-8 read as Latin-1': Buffer.from(key, 'utf8').toString('latin1'),
  };
}
