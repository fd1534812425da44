// auto_generate_schemas: false — the task brings its schemas, and the connector synthesized from
// the recording must fit them: every argument the recorded flow takes is declared by the given
// input_schema, and every result field the given output_schema requires is one the flow yields.
// Returns a message for the person, or null when the schemas fit.

type Schema = { properties?: Record<string, unknown>; required?: string[] };

export function checkGivenSchemas(
  built: { input_schema: object; output_schema: object },
  givenInput: object | null,
  givenOutput: object | null,
): string | null {
  const problems: string[] = [];
  if (givenInput) {
    const declared = new Set(Object.keys((givenInput as Schema).properties ?? {}));
    const needed = Object.keys((built.input_schema as Schema).properties ?? {}).filter((a) => !declared.has(a));
    if (needed.length)
      problems.push(`the recorded flow takes argument(s) ${needed.join(', ')} that the given input_schema does not declare`);
  }
  if (givenOutput) {
    const yielded = new Set(Object.keys((built.output_schema as Schema).properties ?? {}));
    const missing = ((givenOutput as Schema).required ?? []).filter((f) => !yielded.has(f));
    if (missing.length) problems.push(`the given output_schema requires ${missing.join(', ')}, which the recorded result does not contain`);
  }
  return problems.length
    ? `The recording does not fit the task's schemas: ${problems.join('; ')}. Adjust the schemas or record a flow that matches them.`
    : null;
}
