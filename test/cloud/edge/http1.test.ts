import { describe, expect, it } from 'vitest';
import { ProtocolError, ResponseParser, requestHead } from '../../../cloud/edge/http1.ts';

interface Heard {
  heads: Array<{ status: number; reason: string; headers: string[] }>;
  body: string;
  completed: boolean[];
}

function parser(headRequest = false) {
  const heard: Heard = { heads: [], body: '', completed: [] };
  const parsing = new ResponseParser({
    head: (status, reason, headers) => heard.heads.push({ status, reason, headers }),
    body: (chunk) => {
      heard.body += chunk.toString('latin1');
    },
    complete: (reusable) => heard.completed.push(reusable),
  });
  parsing.expect(headRequest);
  return { parsing, heard };
}

/** Feeds the text in pieces of `size` bytes, as a socket may deliver it. */
function feed(parsing: ResponseParser, text: string, size = text.length) {
  for (let at = 0; at < text.length; at += size)
    parsing.feed(Buffer.from(text.slice(at, at + size), 'latin1'));
}

const CHUNKED =
  'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\n\r\n' +
  '5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n';

describe('the router’s HTTP/1.1 to the gateway', () => {
  it('writes a request head with the headers as given and the framing it is told', () => {
    expect(requestHead('POST', '/api/v1/x?a=1', ['host', 'a.test', 'content-length', '2'], 'length')).toBe(
      'POST /api/v1/x?a=1 HTTP/1.1\r\nhost: a.test\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\n',
    );
    expect(requestHead('PUT', '/', [], 'chunked')).toContain('transfer-encoding: chunked\r\n');
  });

  it('reads a response framed by its length, in one piece or byte by byte', () => {
    for (const size of [1000, 1]) {
      const { parsing, heard } = parser();
      feed(parsing, 'HTTP/1.1 201 Created\r\nContent-Length: 5\r\nX-A:  spaced  \r\n\r\nhello', size);
      expect(heard.heads).toEqual([
        { status: 201, reason: 'Created', headers: ['Content-Length', '5', 'X-A', 'spaced'] },
      ]);
      expect(heard.body).toBe('hello');
      expect(heard.completed).toEqual([true]);
    }
  });

  it('reads a chunked body with extensions and trailers, repeated headers kept, in any pieces', () => {
    for (const size of [1000, 7, 1]) {
      const { parsing, heard } = parser();
      feed(parsing, CHUNKED, size);
      expect(heard.heads[0]!.headers).toEqual([
        'Transfer-Encoding',
        'chunked',
        'Set-Cookie',
        'a=1',
        'Set-Cookie',
        'b=2',
      ]);
      expect(heard.body).toBe('hello, world');
      expect(heard.completed).toEqual([true]);
    }
  });

  it('skips 1xx answers, and reads no body for HEAD, 204 and 304', () => {
    const informational = parser();
    feed(
      informational.parsing,
      'HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n',
    );
    expect(informational.heard.heads.map((h) => h.status)).toEqual([204]);
    expect(informational.heard.completed).toEqual([true]);
    const head = parser(true);
    feed(head.parsing, 'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n');
    expect(head.heard.completed).toEqual([true]);
    const notModified = parser();
    feed(notModified.parsing, 'HTTP/1.1 304 Not Modified\r\nETag: "x"\r\n\r\n');
    expect(notModified.heard.completed).toEqual([true]);
  });

  it('reads a body without length or chunking to the close, and never reuses that connection', () => {
    const { parsing, heard } = parser();
    feed(parsing, 'HTTP/1.1 200 OK\r\n\r\nuntil the');
    feed(parsing, ' end');
    expect(heard.completed).toEqual([]);
    parsing.end();
    expect(heard.body).toBe('until the end');
    expect(heard.completed).toEqual([false]);
  });

  it('marks a connection the gateway closes, or an HTTP/1.0 one, as not reusable', () => {
    const closing = parser();
    feed(closing.parsing, 'HTTP/1.1 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 0\r\n\r\n');
    expect(closing.heard.completed).toEqual([false]);
    const old = parser();
    feed(old.parsing, 'HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n');
    expect(old.heard.completed).toEqual([false]);
  });

  it('refuses what it cannot frame for certain, so the connection is dropped rather than reused', () => {
    const refused = [
      'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n',
      'HTTP/1.1 200 OK\r\nX-A: 1\r\n folded\r\n\r\n',
      'HTTP/1.1 200 OK\r\nBad Name: 1\r\n\r\n',
      'HTTP/1.1 200 OK\r\nX-A: bell\x07\r\n\r\n',
      'HTTP/2 200\r\n\r\n',
      'HTTP/1.1 101 Switching Protocols\r\n\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX\r\n',
      // A byte past the end of the response: the next request's answer would not be its own.
      'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nabHTTP/1.1 200 OK\r\n\r\n',
    ];
    for (const text of refused)
      expect(() => feed(parser().parsing, text), JSON.stringify(text)).toThrow(ProtocolError);
    expect(() => feed(parser().parsing, `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(70_000)}`)).toThrow(
      ProtocolError,
    );
  });

  it('refuses a connection closed before the response ended', () => {
    const { parsing } = parser();
    feed(parsing, 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort');
    expect(() => parsing.end()).toThrow(ProtocolError);
    const unanswered = parser();
    expect(() => unanswered.parsing.end()).toThrow(ProtocolError);
  });
});
