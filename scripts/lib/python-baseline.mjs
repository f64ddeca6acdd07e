// Chakra-style Python reading, the baseline inspect is measured against: the length varint, then ParseFromString per
// frame, with python3-protobuf's C++ backend; the strict form of it (the whole file read at once, frames parsed from
// memoryview slices), since Chakra's own reader reads the file a byte at a time, which is slower. The Python module
// comes from proto/et_def.proto through protoc at run time.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const PYTHON_READER = `
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from google.protobuf.internal import api_implementation
from google.protobuf.internal.decoder import _DecodeVarint32
import et_def_pb2 as pb
t0, c0 = time.perf_counter(), time.process_time()
with open(sys.argv[2], 'rb') as f:
    data = f.read()
view, pos, nodes = memoryview(data), 0, 0
length, pos = _DecodeVarint32(data, pos)
pb.GlobalMetadata().ParseFromString(view[pos:pos + length])
pos += length
node = pb.Node()
while pos < len(data):
    length, pos = _DecodeVarint32(data, pos)
    node.ParseFromString(view[pos:pos + length])
    pos += length
    nodes += 1
print(json.dumps({'nodes': nodes, 'seconds': time.perf_counter() - t0, 'cpuSeconds': time.process_time() - c0,
                  'peakRssMiB': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 'implementation': api_implementation.Type()}))
`;

/**
 * A python3 with google.protobuf, and the reading script beside the generated et_def_pb2 module in `dir` (run it as
 * `python script dir file`: one JSON line); or why there is none.
 */
export function findPython(dir) {
  const candidates = [...new Set(['python3', '/usr/bin/python3'])];
  const python = candidates.find(
    (p) => spawnSync(p, ['-c', 'import google.protobuf'], { stdio: 'ignore' }).status === 0,
  );
  if (!python) return { reason: 'no python3 with google.protobuf (Debian: apt-get install python3-protobuf)' };
  const protoc = spawnSync('protoc', ['--proto_path', path.join(root, 'proto'), '--python_out', dir, 'et_def.proto'], {
    encoding: 'utf8',
  });
  if (protoc.status !== 0)
    return {
      reason: `protoc could not generate the Python module (${protoc.error?.message ?? protoc.stderr.trim()}; Debian: apt-get install protobuf-compiler)`,
    };
  const script = path.join(dir, 'read_et.py');
  writeFileSync(script, PYTHON_READER);
  return { python, script };
}
