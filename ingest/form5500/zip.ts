/**
 * A small zip reader and writer on Node's zlib (no dependency): enough for the DOL's dataset
 * zips. Reading takes the central directory (the only reliable sizes when an entry was written
 * with a data descriptor), then streams each entry from its local header through
 * `createInflateRaw` (method 8) or as is (method 0). ZIP64 sizes and offsets are read from the
 * ZIP64 end record and the entries' extra fields, so entries over 4 GB work. Writing streams
 * deflated entries with data descriptors (sizes known only at the end), ZIP64-free, for the
 * generator and tests.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { Readable, Transform } from 'node:stream';
import { createDeflateRaw, createInflateRaw, crc32 } from 'node:zlib';

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  /** Offset of the local file header. */
  offset: number;
  /** CRC-32 of the uncompressed bytes, from the central directory. */
  crc: number;
}

export class ZipError extends Error {}

const EOCD = 0x06054b50;
const EOCD64_LOCATOR = 0x07064b50;
const EOCD64 = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX32 = 0xffffffff;

async function readAt(path: string, pos: number, len: number): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(len);
    const { bytesRead } = await fh.read(buf, 0, len, pos);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** Where the central directory is, from the end record (and the ZIP64 end record when present). */
async function directory(path: string, size: number): Promise<{ offset: number; length: number; count: number }> {
  const tailLen = Math.min(size, 22 + 0xffff + 20);
  const tail = await readAt(path, size - tailLen, tailLen);
  let at = -1;
  for (let i = tail.length - 22; i >= 0; i--) if (tail.readUInt32LE(i) === EOCD) { at = i; break; }
  if (at < 0) throw new ZipError(`${path} is not a zip file (no end of central directory)`);
  let count = tail.readUInt16LE(at + 10);
  let length = tail.readUInt32LE(at + 12);
  let offset = tail.readUInt32LE(at + 16);
  if ((offset === MAX32 || count === 0xffff) && at >= 20 && tail.readUInt32LE(at - 20) === EOCD64_LOCATOR) {
    const rec = await readAt(path, Number(tail.readBigUInt64LE(at - 12)), 56);
    if (rec.readUInt32LE(0) !== EOCD64) throw new ZipError(`${path}: bad ZIP64 end record`);
    count = Number(rec.readBigUInt64LE(32));
    length = Number(rec.readBigUInt64LE(40));
    offset = Number(rec.readBigUInt64LE(48));
  }
  return { offset, length, count };
}

/** ZIP64 extra field (id 1): the 64-bit values replace, in order, those stored as 0xFFFFFFFF. */
function zip64(extra: Buffer, e: ZipEntry): void {
  for (let i = 0; i + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(i);
    const len = extra.readUInt16LE(i + 2);
    if (id === 1) {
      let p = i + 4;
      const next = () => { const v = Number(extra.readBigUInt64LE(p)); p += 8; return v; };
      if (e.size === MAX32) e.size = next();
      if (e.compressedSize === MAX32) e.compressedSize = next();
      if (e.offset === MAX32) e.offset = next();
      return;
    }
    i += 4 + len;
  }
}

/** The entries of a zip file (directories left out). */
export async function listZip(path: string): Promise<ZipEntry[]> {
  const { size } = await stat(path);
  const dir = await directory(path, size);
  const buf = await readAt(path, dir.offset, dir.length);
  const out: ZipEntry[] = [];
  for (let p = 0, n = 0; n < dir.count; n++) {
    if (buf.readUInt32LE(p) !== CENTRAL) throw new ZipError(`${path}: damaged central directory (entry ${n + 1})`);
    const flags = buf.readUInt16LE(p + 8);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const rawName = buf.subarray(p + 46, p + 46 + nameLen);
    const name = flags & 0x800 ? rawName.toString('utf8') : rawName.toString('latin1');
    const e: ZipEntry = { name, method: buf.readUInt16LE(p + 10), crc: buf.readUInt32LE(p + 16), compressedSize: buf.readUInt32LE(p + 20), size: buf.readUInt32LE(p + 24), offset: buf.readUInt32LE(p + 42) };
    zip64(buf.subarray(p + 46 + nameLen, p + 46 + nameLen + extraLen), e);
    if (!name.endsWith('/')) out.push(e);
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

/** Names of the compression methods a zip may name (APPNOTE 4.4.5) that Node's zlib cannot read. */
const METHODS: Record<number, string> = { 1: 'Shrink', 6: 'Implode', 9: 'Deflate64', 12: 'bzip2', 14: 'LZMA', 93: 'Zstandard', 95: 'XZ', 99: 'AES encryption' };

/**
 * The uncompressed bytes of one entry, streamed, checked against the size and CRC-32 the central
 * directory gives: a damaged entry ends its stream with a ZipError naming the file and the entry.
 */
export async function openEntry(path: string, e: ZipEntry): Promise<Readable> {
  if (e.method !== 0 && e.method !== 8) {
    const method = METHODS[e.method] ? `${METHODS[e.method]} (method ${e.method})` : `method ${e.method}`;
    throw new ZipError(`${path}: ${e.name} is compressed with ${method}, which this reader cannot inflate (only stored and deflate): extract it with a tool that can, and import the CSV`);
  }
  const head = await readAt(path, e.offset, 30);
  if (head.readUInt32LE(0) !== LOCAL) throw new ZipError(`${path}: damaged local header of ${e.name}`);
  const start = e.offset + 30 + head.readUInt16LE(26) + head.readUInt16LE(28);
  if (e.compressedSize === 0) return checked(path, e, Readable.from([]));
  const raw = createReadStream(path, { start, end: start + e.compressedSize - 1, highWaterMark: 256 << 10 });
  if (e.method === 0) return checked(path, e, raw);
  const inflate = createInflateRaw({ chunkSize: 256 << 10 });
  raw.on('error', (err) => inflate.destroy(err));
  return checked(path, e, raw.pipe(inflate));
}

const hex = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');

/** `input` passed through, its size and CRC-32 compared with the entry's at the end. */
function checked(path: string, e: ZipEntry, input: Readable): Readable {
  let crc = 0;
  let size = 0;
  const check = new Transform({
    transform(chunk: Buffer, _enc, done) {
      crc = crc32(chunk, crc);
      size += chunk.length;
      done(null, chunk);
    },
    flush(done) {
      if (size === e.size && crc >>> 0 === e.crc >>> 0) return done();
      done(new ZipError(`${path}: ${e.name} is damaged: its bytes read back as ${size} with CRC-32 ${hex(crc)}, the archive says ${e.size} with ${hex(e.crc)}`));
    },
  });
  input.on('error', (err) => check.destroy(err));
  return input.pipe(check);
}

/** One file to put in a zip: its name and its content as chunks. */
export interface ZipInput {
  name: string;
  chunks: AsyncIterable<Buffer | string> | Iterable<Buffer | string>;
}

/** Writes a zip of deflated entries (data descriptors; sizes under 4 GB). */
export async function writeZip(path: string, inputs: Iterable<ZipInput>): Promise<void> {
  const out = createWriteStream(path);
  let pos = 0;
  const write = async (b: Buffer) => {
    pos += b.length;
    if (!out.write(b)) await once(out, 'drain');
  };
  const central: Buffer[] = [];
  for (const input of inputs) {
    const name = Buffer.from(input.name, 'utf8');
    const offset = pos;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x808, 6); // data descriptor, UTF-8 name
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(name.length, 26);
    await write(Buffer.concat([local, name]));
    let crc = 0;
    let size = 0;
    let compressed = 0;
    const deflate = createDeflateRaw();
    const pump = (async () => {
      for await (const c of deflate) {
        compressed += (c as Buffer).length;
        await write(c as Buffer);
      }
    })();
    for await (const chunk of input.chunks) {
      const b = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
      crc = crc32(b, crc);
      size += b.length;
      if (!deflate.write(b)) await once(deflate, 'drain');
    }
    deflate.end();
    await pump;
    const desc = Buffer.alloc(16);
    desc.writeUInt32LE(0x08074b50, 0);
    desc.writeUInt32LE(crc >>> 0, 4);
    desc.writeUInt32LE(compressed, 8);
    desc.writeUInt32LE(size, 12);
    await write(desc);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(CENTRAL, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(0x808, 8);
    c.writeUInt16LE(8, 10);
    c.writeUInt32LE(crc >>> 0, 16);
    c.writeUInt32LE(compressed, 20);
    c.writeUInt32LE(size, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(offset, 42);
    central.push(Buffer.concat([c, name]));
  }
  const dirStart = pos;
  const dir = Buffer.concat(central);
  await write(dir);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(EOCD, 0);
  end.writeUInt16LE(central.length, 8);
  end.writeUInt16LE(central.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(dirStart, 16);
  out.end(end);
  await finished(out);
}
