// Reading /openapi.json in tests: schemas and responses are $refs into components.
/** The component a `{$ref: '#/components/<kind>/<Name>'}` points at (or the value itself). */
export function deref(doc: any, v: any): any {
  for (let i = 0; i < 10 && typeof v?.$ref === 'string'; i++) {
    const [, , kind, name] = v.$ref.split('/');
    v = doc.components?.[kind]?.[name];
  }
  return v;
}

/** Names of the components a oneOf refers to, e.g. ['Run', 'TaskBasedRun']. */
export const oneOfNames = (schema: any): string[] => (schema?.oneOf ?? []).map((s: any) => String(s.$ref).split('/').pop());

/** Every (method, path, operation) of the document. */
export function operations(doc: any): { method: string; path: string; op: any }[] {
  return Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    Object.entries<any>(item)
      .filter(([m]) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
      .map(([method, op]) => ({ method, path, op })),
  );
}
