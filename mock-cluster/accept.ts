/**
 * The media ranges of an Accept header, with their parameters (`as`, `g`, `v`): how the API
 * server picks Table, PartialObjectMetadata or aggregated discovery over plain JSON.
 */
export interface MediaRange {
  mediaType: string;
  parameters: Map<string, string>;
}

export function parseAccept(accept: string | undefined): MediaRange[] {
  return (accept ?? '').split(',').map((part) => {
    const [mediaType = '', ...rest] = part.split(';').map((piece) => piece.trim());
    const parameters = new Map(
      rest.map((parameter) => parameter.split('=').map((piece) => piece.trim()) as [string, string]),
    );
    return { mediaType, parameters };
  });
}
