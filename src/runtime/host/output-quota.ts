// Per-run quota on output files (issue 9, finding 7): how many a run may save, how many bytes in
// all, and how large one file may be (a file crosses the IPC channel whole, in memory). Counted by
// the server as files.save calls arrive; a call over a limit ends the run connector_error.
import { RunAbort } from './pool.js';

export interface OutputLimits {
  /** RUN_OUTPUT_MAX_FILES */
  maxFiles: number;
  /** RUN_OUTPUT_MAX_BYTES: all of a run's files together. */
  maxBytes: number;
  /** RUN_OUTPUT_MAX_FILE_BYTES */
  maxFileBytes: number;
}

export class OutputQuota {
  private files = 0;
  private bytes = 0;

  constructor(private readonly limits: OutputLimits) {}

  /**
   * Counts a file of `size` bytes about to be saved, or throws RunAbort naming the setting it
   * would exceed. Synchronous, so concurrent saves of one run can't all slip under the limit.
   */
  reserve(size: number): void {
    const l = this.limits;
    if (size > l.maxFileBytes)
      throw over(
        `an output file of ${size} bytes is larger than RUN_OUTPUT_MAX_FILE_BYTES (${l.maxFileBytes})`,
        'RUN_OUTPUT_MAX_FILE_BYTES',
        l.maxFileBytes,
      );
    if (this.files + 1 > l.maxFiles)
      throw over(`the run tried to save more than RUN_OUTPUT_MAX_FILES (${l.maxFiles}) output files`, 'RUN_OUTPUT_MAX_FILES', l.maxFiles);
    if (this.bytes + size > l.maxBytes) {
      throw over(
        `the run's output files would exceed RUN_OUTPUT_MAX_BYTES (${l.maxBytes} bytes in all; ${this.bytes} saved, this one ${size})`,
        'RUN_OUTPUT_MAX_BYTES',
        l.maxBytes,
      );
    }
    this.files++;
    this.bytes += size;
  }

  /** A reserved file that was not saved after all. */
  release(size: number): void {
    this.files--;
    this.bytes -= size;
  }
}

function over(message: string, setting: string, limit: number): RunAbort {
  return new RunAbort({
    type: 'unhandled',
    message: `output quota exceeded: ${message}; the file was not saved`,
    retryable: false,
    exception: null,
    details: { setting, limit },
  });
}
