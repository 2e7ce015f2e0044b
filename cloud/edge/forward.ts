import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { answerText, endToEnd, responseHeaders, SECURITY_HEADERS } from './answers.ts';
import { isTimeout, type Upstream } from './upstream.ts';

/**
 * The headers the gateway gets: the client's end-to-end ones (Host and CF-Connecting-IP included,
 * so the gateway names itself as clients reach it), the tenant and the original host set by us
 * whatever the client sent, and the usual X-Forwarded-For and -Proto. TLS ends in front of the
 * router (the CDN), which says so in X-Forwarded-Proto; anything else is plain http.
 */
export function forwardedHeaders(req: IncomingMessage, tenant: string): OutgoingHttpHeaders {
  const headers = endToEnd(req.headers);
  const peer = req.socket.remoteAddress ?? 'unknown';
  const prior = req.headers['x-forwarded-for'];
  // Node answers Expect: 100-continue itself; the body then comes on and is streamed on.
  delete headers.expect;
  headers['x-tenant-id'] = tenant;
  headers['x-forwarded-host'] = req.headers.host;
  headers['x-forwarded-for'] = prior ? `${prior}, ${peer}` : peer;
  headers['x-forwarded-proto'] = req.headers['x-forwarded-proto'] === 'https' ? 'https' : 'http';
  return headers;
}

/** 504 when the gateway was too slow, 502 when it could not be reached or broke off. */
export function upstreamFailure(error: Error) {
  return isTimeout(error) ? { status: 504, body: 'Gateway Timeout' } : { status: 502, body: 'Bad Gateway' };
}

const hasBody = (req: IncomingMessage) =>
  req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;

/**
 * Writes the gateway's answer as it arrives: a client that stops reading pauses the gateway's
 * response (undici resumes on drain), and a client that leaves aborts the request upstream.
 */
function answering(req: IncomingMessage, res: ServerResponse, extra: Record<string, string>, log: Logger) {
  const added = { ...SECURITY_HEADERS, ...extra };
  let abort: ((error?: Error) => void) | undefined;
  let resume: (() => void) | undefined;
  res.on('drain', () => resume?.());
  res.once('close', () => {
    if (!res.writableFinished) abort?.(new Error('client went away'));
  });
  const handler: Dispatcher.DispatchHandlers = {
    onConnect: (abortRequest) => {
      abort = abortRequest;
    },
    onHeaders(status, raw, resumeResponse, statusText) {
      if (status < 200) return true; // 1xx: the final answer follows
      resume = resumeResponse;
      const answer = responseHeaders(raw, added);
      if (statusText) res.writeHead(status, statusText, answer);
      else res.writeHead(status, answer);
      return true;
    },
    onData: (chunk) => res.write(chunk),
    onComplete: () => res.end(),
    onError(error) {
      if (res.destroyed) return; // the client left first
      if (res.headersSent) return void res.destroy();
      log.warn({ err: error, method: req.method, url: req.url }, 'gateway request failed');
      const { status, body } = upstreamFailure(error);
      // The rest of an unread upload is not worth reading: answer, then close the connection.
      if (!req.complete) res.shouldKeepAlive = false;
      req.resume();
      answerText(res, status, body, extra);
    },
  };
  return handler;
}

/**
 * Streams the request to the gateway and its response back, neither body held whole (back-pressure
 * both ways). `extra` goes on the response (the limiter's counts).
 */
export function forward(
  upstream: Upstream,
  req: IncomingMessage,
  res: ServerResponse,
  headers: OutgoingHttpHeaders,
  extra: Record<string, string>,
  log: Logger,
) {
  upstream.pool.dispatch(
    {
      method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
      path: req.url ?? '/',
      headers: headers as Record<string, string | string[]>,
      body: hasBody(req) ? req : null,
    },
    answering(req, res, extra, log),
  );
}
