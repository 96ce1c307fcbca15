/** The protobuf wire format as far as the mock reads it: fields, varints, bytes. */

export class ProtobufError extends Error {}

export type Field = { number: number; wire: number; value: bigint | Buffer };

export function readFields(buffer: Buffer): Field[] {
  const fields: Field[] = [];
  let offset = 0;
  const readVarint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (offset >= buffer.length) throw new ProtobufError('truncated varint');
      const byte = buffer[offset++] ?? 0;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (offset < buffer.length) {
    const key = Number(readVarint());
    const number = key >>> 3;
    const wire = key & 7;
    if (wire === 0) fields.push({ number, wire, value: readVarint() });
    else if (wire === 2) {
      const length = Number(readVarint());
      if (offset + length > buffer.length) throw new ProtobufError('truncated field');
      fields.push({ number, wire, value: buffer.subarray(offset, offset + length) });
      offset += length;
    } else if (wire === 1) offset += 8;
    else if (wire === 5) offset += 4;
    else throw new ProtobufError(`unsupported wire type ${wire}`);
  }
  return fields;
}

export const bytes = (field: Field): Buffer => (Buffer.isBuffer(field.value) ? field.value : Buffer.alloc(0));
export const text = (field: Field): string => bytes(field).toString('utf8');
export const integer = (field: Field): number =>
  typeof field.value === 'bigint' ? Number(BigInt.asIntN(64, field.value)) : 0;
