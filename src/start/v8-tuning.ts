// V8 settings for a long-running server process, applied first thing by the entry points.
//
// Allocation-site pretenuring off: V8 may decide, from what survived a few early garbage
// collections, to allocate the objects of an allocation site straight in the old generation, and
// that decision lasts for the process's life. Measured on the request path (docs/architecture.md):
// without this setting, 7 of 20 server starts settled in a mode with 4–10 ms scavenges and about
// 1.7× the CPU per request; with it, 0 of 27 did. Set at run time (not a command-line flag) so a
// Node whose V8 lacks the flag ignores it instead of refusing to start.
import v8 from 'node:v8';

export function tuneV8(): void {
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
}
