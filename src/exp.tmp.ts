import { messageBodyText, decodeEncodedWords, headerParam } from './modules/google/google.mime.js';
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64url');
const time = (what: string, fn: () => unknown) => { const t = performance.now(); fn(); console.log(what, Math.round(performance.now() - t)); };
for (const mb of [1, 4]) {
  const n = mb * 1024 * 1024;
  time(`cp1252 ${mb}`, () => messageBodyText({ mimeType: 'text/plain', headers: [{ name: 'Content-Type', value: 'text/plain; charset=windows-1252' }], body: { data: b64(Buffer.alloc(n, 0x93)) } }));
  time(`utf8 ${mb}`, () => messageBodyText({ mimeType: 'text/plain', body: { data: b64(Buffer.alloc(n, 0x61)) } }));
  time(`html ${mb}`, () => messageBodyText({ mimeType: 'text/html', body: { data: b64('<a'.repeat(n / 2)) } }));
  const parts = Array.from({ length: mb * 20000 }, () => ({ mimeType: 'text/plain', body: { data: b64('hi') } }));
  time(`wide ${mb}`, () => messageBodyText({ mimeType: 'multipart/mixed', parts }));
  time(`words ${mb}`, () => decodeEncodedWords('=?utf-8?B?aGk=?= '.repeat(n / 17)));
  time(`wordsQ ${mb}`, () => decodeEncodedWords('=?utf-8?Q?' + '=41'.repeat(n / 3) + '?='));
  time(`words-broken ${mb}`, () => decodeEncodedWords('=?utf-8?B?'.repeat(n / 10)));
  time(`param ${mb}`, () => headerParam('text/plain' + '; charset="'.repeat(n / 11), 'charset'));
  time(`param2 ${mb}`, () => headerParam('text/plain' + ';charset= "'.repeat(n / 11), 'charset'));
  time(`param3 ${mb}`, () => headerParam('text/plain' + '; x'.repeat(n / 4), 'charset'));
}
