/** The API version (spec, Versioning): the OpenAPI document's info.version, package.json's version and the newest changelog entry's. */
export const API_VERSION = '1.0.0-internal-phase-1';
