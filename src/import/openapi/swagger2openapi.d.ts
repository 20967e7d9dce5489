/** The part of swagger2openapi (no bundled types) that the importer calls. */
declare module 'swagger2openapi' {
  interface ConvertOptions {
    patch?: boolean;
    warnOnly?: boolean;
    resolve?: boolean;
  }
  const swagger2openapi: {
    convertObj(doc: object, options: ConvertOptions): Promise<{ openapi: object }>;
  };
  export default swagger2openapi;
}
