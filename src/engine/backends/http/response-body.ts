/**
 * A 2xx upstream body as the envelope's input: JSON parsed (and searched for the
 * gateway's credentials), text as text, nothing as null.
 *
 * A shaped grant (`pick` / `omit`) fails closed (spec-language.md, "Shaping results
 * (`pick` and `omit`)"): its caller receives only what was shaped. A body is parsed as JSON whatever
 * its content type says; one that does not parse, or that was cut at the read cap, is
 * withheld (result null, `coverage.withheld` says why) rather than passed on as text,
 * and an error says what went wrong without quoting the body.
 */
import { engineError } from '../../error-catalogue.js';
import type { Redactor } from '../../redact.js';
import { MAX_RESULT_DEPTH } from '../../../json/json-depth.js';
import { layoutOf } from '../../../json/json-layout.js';
import type { BackendOutcome } from '../kind.js';
import { decodeUtf8Prefix } from '../../../outbound/utf8-prefix.js';

export interface BodyRead {
  readonly bytes: Buffer;
  /** The body went on past the read cap; `bytes` holds its first `readCap` bytes. */
  readonly overflow: boolean;
  readonly contentType: string | undefined;
}

const JSON_TYPE = /^(application\/([\w.+-]*\+)?json|text\/json)\b/i;

export function interpretBody(
  read: BodyRead,
  readCap: number,
  redact: Redactor,
  shaped: boolean,
): BackendOutcome {
  const { bytes, overflow, contentType } = read;
  const isJson = contentType !== undefined && JSON_TYPE.test(contentType);
  if (bytes.length === 0) return { ok: true, value: { result: null } };
  if (isJson && overflow) {
    return {
      ok: false,
      error: engineError(
        'UPSTREAM_BAD_RESPONSE',
        `upstream JSON is larger than the read cap of ${readCap} bytes; ask for less (a smaller page, fewer fields)`,
      ),
    };
  }
  if (isJson) return parseJson(bytes.toString('utf8'), redact, bytes.length, invalidJson);
  if (shaped) {
    if (overflow)
      return withheld(
        bytes.length,
        `the upstream body is larger than the read cap of ${readCap} bytes, and a cut body is not JSON the grant's pick/omit can shape`,
      );
    const notJson = (): BackendOutcome =>
      withheld(
        bytes.length,
        `the upstream sent ${contentType === undefined ? 'a body without a content type' : contentType} that is not JSON, and only what the grant's pick/omit can shape is passed on`,
      );
    return parseJson(bytes.toString('utf8'), redact, bytes.length, notJson);
  }
  const text = overflow
    ? redact.cutText(decodeUtf8Prefix(bytes))
    : redact.text(bytes.toString('utf8'));
  return {
    ok: true,
    value: {
      result: text,
      receivedBytes: bytes.length,
      ...(overflow && { alreadyTruncated: true }),
    },
  };

  // A JSON content type with a body that does not parse: quoted only for a grant
  // that does not shape (the whole text is redacted before it is cut, so no cut
  // leaves half a secret).
  function invalidJson(raw: string): BackendOutcome {
    const quoted = shaped ? '' : `: ${JSON.stringify(redact.text(raw).slice(0, 200))}`;
    return {
      ok: false,
      error: engineError(
        'UPSTREAM_BAD_RESPONSE',
        `upstream said ${contentType} but sent invalid JSON${quoted}`,
      ),
    };
  }
}

function withheld(receivedBytes: number, why: string): BackendOutcome {
  return { ok: true, value: { result: null, withheld: why, receivedBytes } };
}

function parseJson(
  raw: string,
  redact: Redactor,
  receivedBytes: number,
  unparsed: (raw: string) => BackendOutcome,
): BackendOutcome {
  const layout = layoutOf(raw, MAX_RESULT_DEPTH);
  if (layout.kind === 'too-deep') {
    return {
      ok: false,
      error: engineError(
        'UPSTREAM_BAD_RESPONSE',
        `upstream JSON nests deeper than ${MAX_RESULT_DEPTH} levels`,
      ),
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw) as unknown;
  } catch {
    return unparsed(raw);
  }
  // Compact and free of escapes: the upstream's text is the JSON that leaves, as it
  // came (no second serialization), and every key and value is spelled in it as
  // parsed, so one scan of it finds any secret (json/json-layout.ts).
  if (layout.kind === 'compact') {
    const text =
      layout.start === 0 && layout.end === raw.length ? raw : raw.slice(layout.start, layout.end);
    if (!redact.found(text))
      return { ok: true, value: { result: parsed, resultJson: text, receivedBytes } };
  }
  // Searched in the JSON that leaves (one scan): a string that parsing decoded from
  // escapes (\/, \u002b) is found as the secret it is now, spanning structure too.
  let json = JSON.stringify(parsed);
  if (redact.found(json)) {
    parsed = redact.value(parsed);
    json = JSON.stringify(parsed);
    if (redact.found(json)) {
      // Only a secret spelled across keys and values is left: nothing of it is sent.
      return {
        ok: false,
        error: engineError(
          'UPSTREAM_BAD_RESPONSE',
          'upstream JSON holds a credential of the gateway across its structure; the result is withheld',
        ),
      };
    }
  }
  return { ok: true, value: { result: parsed, resultJson: json, receivedBytes } };
}
