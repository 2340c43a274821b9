// Why a file the command was given could not be read or written, as every option that takes one says it.
import { describe, expect, test } from 'vitest';
import { fileErrorReason } from '../../cli/record/errors.ts';

const fsError = (code: string, message = `${code}: something`) => Object.assign(new Error(message), { code });

describe('fileErrorReason', () => {
  test('a missing path is "no such file", or the wording the caller gives', () => {
    expect(fileErrorReason(fsError('ENOENT'))).toBe('no such file');
    expect(fileErrorReason(fsError('ENOENT'), 'its folder does not exist')).toBe('its folder does not exist');
  });

  test('a refused or a folder path says so in words', () => {
    expect(fileErrorReason(fsError('EACCES'))).toBe('permission denied');
    expect(fileErrorReason(fsError('EISDIR'))).toBe('it is a folder');
  });

  test('any other error is named by its code, or by the first line of its message', () => {
    expect(fileErrorReason(fsError('ENOTDIR'))).toBe('ENOTDIR');
    expect(fileErrorReason(new Error('first line\nsecond line'))).toBe('first line');
  });
});
