/**
 * The API version: the OpenAPI document's `info.version` and the discovery document's `version`.
 * Kept apart from app.ts so that modules can read it without importing the app that imports them.
 */
export const API_VERSION = '0.1.0';
