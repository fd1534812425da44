// Errors every blob store adapter throws the same way, so callers map them once.

/** The body held more or fewer bytes than the size the upload was signed for. */
export class UploadSizeError extends Error {
  constructor(
    readonly expected: number,
    readonly received: number,
    readonly tooLarge: boolean,
  ) {
    super(
      tooLarge
        ? `Upload is larger than the signed size of ${expected} bytes`
        : `Upload ended after ${received} of the signed ${expected} bytes`,
    );
  }
}
