/**
 * A gzipped ustar archive written byte for byte the same from the same entries: entries in the
 * order given, every mtime the one given, uid and gid 0, no user or group names, modes as given,
 * and a gzip header without a time. node-tar leaves directories without an mtime in its portable
 * mode, empty uid/gid fields, and times in the pax headers it adds for long paths; here a pax
 * header, when a path needs one, holds the path and nothing else.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

export interface ArchiveEntry {
  /** '/'-separated, relative; a directory's without its trailing slash. */
  path: string;
  type: 'file' | 'directory';
  mode: number;
  size: number;
  /** A file's bytes: a file to read, or the bytes themselves. */
  source?: string | Buffer;
}

const BLOCK = 512;
/** tar's default blocking factor: readers expect the archive in whole records of 20 blocks. */
const RECORD = 20 * BLOCK;
const MAX_OCTAL_SIZE = 8 ** 11 - 1;

function writeString(header: Buffer, offset: number, length: number, value: string) {
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.length > length) throw new Error(`"${value}" does not fit a ${length}-byte tar field`);
  bytes.copy(header, offset);
}

/** `length - 1` octal digits and a NUL, as GNU tar and node-tar read them. */
function writeOctal(header: Buffer, offset: number, length: number, value: number) {
  writeString(header, offset, length, `${value.toString(8).padStart(length - 1, '0')}\0`);
}

/** ustar keeps a long path as prefix/name at a slash: up to 155 + 100 bytes. */
function splitPath(path: string): { name: string; prefix: string } | undefined {
  if (Buffer.byteLength(path) <= 100) return { name: path, prefix: '' };
  for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) {
    const prefix = path.slice(0, slash);
    const name = path.slice(slash + 1);
    if (Buffer.byteLength(prefix) > 155) return undefined;
    if (name !== '' && Buffer.byteLength(name) <= 100) return { name, prefix };
  }
  return undefined;
}

interface HeaderFields {
  name: string;
  prefix: string;
  mode: number;
  size: number;
  mtime: number;
  type: '0' | '5' | 'x';
}

function header(fields: HeaderFields): Buffer {
  const block = Buffer.alloc(BLOCK);
  writeString(block, 0, 100, fields.name);
  writeOctal(block, 100, 8, fields.mode);
  writeOctal(block, 108, 8, 0);
  writeOctal(block, 116, 8, 0);
  writeOctal(block, 124, 12, fields.size);
  writeOctal(block, 136, 12, fields.mtime);
  writeString(block, 156, 1, fields.type);
  writeString(block, 257, 6, 'ustar\0');
  writeString(block, 263, 2, '00');
  writeOctal(block, 329, 8, 0);
  writeOctal(block, 337, 8, 0);
  writeString(block, 345, 155, fields.prefix);
  // The checksum is taken with its own field as eight spaces.
  block.fill(' ', 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  writeString(block, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return block;
}

/** A pax record's length counts its own digits. */
function paxRecord(key: string, value: string) {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body);
  while (String(length).length + Buffer.byteLength(body) !== length)
    length = String(length).length + Buffer.byteLength(body);
  return `${length}${body}`;
}

const padding = (size: number) => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);

/** The header blocks of one entry: a pax header first when its path does not fit ustar's fields. */
function headers(entry: ArchiveEntry, mtime: number): Buffer[] {
  const path = entry.type === 'directory' ? `${entry.path}/` : entry.path;
  const type = entry.type === 'directory' ? '5' : '0';
  if (entry.size > MAX_OCTAL_SIZE) throw new Error(`${entry.path} is too large for a ustar archive`);
  const split = splitPath(path);
  const own = { mode: entry.mode, size: entry.size, mtime, type } as const;
  if (split) return [header({ ...split, ...own })];
  const record = Buffer.from(paxRecord('path', path));
  const base = path.replace(/\/$/, '').split('/').at(-1)!;
  const paxName = `PaxHeader/${Buffer.from(base)
    .subarray(0, 90)
    .toString('utf8')
    .replace(/\uFFFD/g, '')}`;
  const pax = header({ name: paxName, prefix: '', mode: 0o644, size: record.length, mtime, type: 'x' });
  // The fields of the entry's own header get the path's tail; readers take the pax path over it.
  const tail = Buffer.from(path)
    .subarray(-100)
    .toString('utf8')
    .replace(/^\uFFFD+/, '');
  return [pax, record, padding(record.length), header({ name: tail, prefix: '', ...own })];
}

async function* blocks(entries: readonly ArchiveEntry[], mtime: number): AsyncGenerator<Buffer> {
  let written = 0;
  for (const entry of entries) {
    for (const block of headers(entry, mtime)) {
      written += block.length;
      yield block;
    }
    if (entry.type === 'directory') continue;
    let read = 0;
    if (Buffer.isBuffer(entry.source)) {
      read = entry.source.length;
      yield entry.source;
    } else if (typeof entry.source === 'string') {
      for await (const chunk of createReadStream(entry.source, { highWaterMark: 1024 * 1024 })) {
        read += (chunk as Buffer).length;
        yield chunk as Buffer;
      }
    }
    if (read !== entry.size)
      throw new Error(`${entry.path} changed while it was archived (${read} bytes, expected ${entry.size})`);
    const pad = padding(read);
    written += read + pad.length;
    yield pad;
  }
  // Two zero blocks end the archive; the record is filled out with zeros.
  const end = 2 * BLOCK;
  yield Buffer.alloc(end + ((RECORD - ((written + end) % RECORD)) % RECORD));
}

function measure() {
  const hash = createHash('sha256');
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  return { stream, result: () => ({ size, sha256: hash.digest('hex') }) };
}

/**
 * Writes the entries as a .tar.gz to `file`; answers its size and SHA-256. `mtime` in seconds since
 * the epoch. zlib's gzip header carries no time and the same system byte (Unix) on every machine.
 */
export async function writeTarGz(entries: readonly ArchiveEntry[], mtime: number, file: string, level = 6) {
  const measured = measure();
  await pipeline(
    blocks(entries, mtime),
    createGzip({ level, memLevel: 9 }),
    measured.stream,
    createWriteStream(file),
  );
  return measured.result();
}
