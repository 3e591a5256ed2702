#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""pprof_receiver.py DIR - stands in for Pyroscope's POST /ingest and Parca's
POST /profiles/writeraw on 127.0.0.1, for user/systemd/ldlat-pprof-push's
test: writes DIR/port (the port it listens on), then for each request the
profile it carries, as those servers read it, into DIR/N.pyroscope.pb.gz (the
multipart part named "profile"; the query string into N.pyroscope.query) or
DIR/N.parca.pb.gz (the base64 rawProfile of the JSON's first series; its
labels into N.parca.labels, "name=value" lines).  Answers 200, or 503 while
DIR/fail exists.  A request it cannot read that way gets 400.
"""
import base64
import email.parser
import email.policy
import http.server
import json
import os
import sys

DIR = sys.argv[1]
count = 0


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, code):
        self.send_response(code)
        self.send_header('Content-Length', '0')
        self.end_headers()

    def do_POST(self):
        global count
        body = self.rfile.read(int(self.headers.get('Content-Length', 0)))
        if os.path.exists(os.path.join(DIR, 'fail')):
            return self.answer(503)
        path, _, query = self.path.partition('?')
        count += 1
        try:
            if path == '/ingest':
                msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
                    b'Content-Type: ' + self.headers['Content-Type'].encode() + b'\r\n\r\n' + body)
                part = next(p for p in msg.iter_parts() if p.get_param('name', header='content-disposition') == 'profile')
                data, kind = part.get_payload(decode=True), 'pyroscope'
                with open(os.path.join(DIR, f'{count}.pyroscope.query'), 'w') as f:
                    f.write(query + '\n')
            elif path == '/profiles/writeraw':
                series = json.loads(body)['series'][0]
                data, kind = base64.b64decode(series['samples'][0]['rawProfile']), 'parca'
                with open(os.path.join(DIR, f'{count}.parca.labels'), 'w') as f:
                    for l in series['labels']['labels']:
                        f.write(f"{l['name']}={l['value']}\n")
            else:
                return self.answer(404)
        except (StopIteration, KeyError, ValueError, TypeError):
            return self.answer(400)
        with open(os.path.join(DIR, f'{count}.{kind}.pb.gz'), 'wb') as f:
            f.write(data)
        self.answer(200)


server = http.server.HTTPServer(('127.0.0.1', 0), Handler)
with open(os.path.join(DIR, 'port.tmp'), 'w') as f:
    f.write(str(server.server_port))
os.rename(os.path.join(DIR, 'port.tmp'), os.path.join(DIR, 'port'))
server.serve_forever()
