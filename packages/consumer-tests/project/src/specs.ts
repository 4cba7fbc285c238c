/** The published specs, validated as OpenAPI 3.1 documents by a validator of the official schema. */

import { specFiles } from '@gspec/specs';
import { Validator } from '@seriousme/openapi-schema-validator';

const results: Record<string, { valid: boolean; version: string; errors?: unknown }> = {};
for (const [api, forms] of Object.entries(specFiles)) {
  for (const [form, file] of Object.entries(forms)) {
    const validator = new Validator();
    const result = await validator.validate(file);
    results[`${api}.${form}`] = {
      valid: result.valid,
      version: validator.version,
      ...(result.valid ? {} : { errors: result.errors }),
    };
  }
}
console.log(JSON.stringify(results));
