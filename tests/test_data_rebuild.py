"""The whole data directory rebuilt from its public origins, through a local mirror, and checked against the bundle.

A local HTTP server on 127.0.0.1 serves a copy of `../shared/origins` (every origin file at the path of its URL,
`HOST/PATH`) plus the two Debian packages behind `gene/` (at `deb.debian.org/debian/pool/main/r/<pkg>/<file>`);
`LLM_PERTURB_MIRROR` points `llm-perturb data fetch` at it. The packages are fetched once with `apt-get download`
into `build/debs` (ignored by git). Two origins of the copy get one byte changed first: both are refused (the error
names the file, the URL and both sha256), nothing of them is left behind, and every other file is still fetched or
rebuilt; with the bytes put back, a second run fetches just those two. Then every file is compared, byte for byte,
with `../shared/data`.
"""
import functools, hashlib, http.server, os, shutil, subprocess, threading, time
from pathlib import Path

import pytest

from llm_perturb.data import load_manifest, file_sha256
from llm_perturb.origins import MIRROR_ENV, fetch_missing, missing_files, download_plan, mirror_url

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / 'shared'
DEBS = {'r-bioc-org.hs.eg.db': '0f61810d35b858915b1a9787d8dcab08b7e164c14c20a9e1d86eb9837308c2c2',
        'r-bioc-go.db': '6cf9c43b97212811ecb7ad0d7cde12e76f984ab7494a59c02455239a9dd3243d'}
DEB_CACHE = ROOT / 'build' / 'debs'
CORRUPT = ['graphs/corum_human_complexes.tsv.gz', 'perturbqa/k562_set-mapping.json']  # one rebuilt, one copied


def _debs() -> dict:
    "The two packages (name -> path), downloaded with apt-get into build/debs if they are not there yet"
    files = {p: DEB_CACHE / f'{p}_3.16.0-1_all.deb' for p in DEBS}
    if not all(f.exists() for f in files.values()):
        DEB_CACHE.mkdir(parents=True, exist_ok=True)
        cmd = ['apt-get', 'download'] + [f'{p}=3.16.0-1' for p in DEBS]
        if subprocess.run(cmd, cwd=DEB_CACHE).returncode != 0:  # the package lists may be missing: update once, retry
            subprocess.run(['apt-get', 'update', '-qq'], check=True)
            subprocess.run(cmd, cwd=DEB_CACHE, check=True)
    for p, f in files.items():
        assert file_sha256(f) == DEBS[p], f"{f}: not the Debian package of SOURCES.md (sha256 {DEBS[p]}); delete it"
    return files


@pytest.fixture(scope='module')
def mirror(tmp_path_factory):
    "(base URL, served folder): a copy of the origins and the two packages behind a local HTTP server"
    if not (SHARED / 'origins').is_dir() or not (SHARED / 'data').is_dir():
        pytest.skip(f'needs the shared origins and data folders beside the checkout ({SHARED})')
    srv = tmp_path_factory.mktemp('mirror')
    shutil.copytree(SHARED / 'origins', srv, dirs_exist_ok=True)
    for p, f in _debs().items():
        d = srv / 'deb.debian.org/debian/pool/main/r' / p
        d.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, d / f.name)
    quiet = type('Quiet', (http.server.SimpleHTTPRequestHandler,), {'log_message': lambda *a: None})
    httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(quiet, directory=str(srv)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f'http://127.0.0.1:{httpd.server_port}', srv
    httpd.shutdown(); httpd.server_close()


def _served(srv: Path, url: str) -> Path:
    return srv / url.split('://', 1)[1]


def test_rebuild_everything_from_the_origins(mirror, tmp_path, monkeypatch, record_property):
    base, srv = mirror
    monkeypatch.setenv(MIRROR_ENV, base)
    m = load_manifest()
    assert m.url.str.startswith('https://').all(), 'every manifest row needs a public URL'
    dest = tmp_path / 'data'; dest.mkdir()
    plan = download_plan(missing_files(dest, m))
    print(f'\n{len(m)} files to make from {len(plan)} origins, {plan.bytes.sum() / 1e6:.1f} MB to download')

    # one byte changed in two origins of the copy
    rows = m.set_index('path')
    originals = {}
    for p in CORRUPT:
        f = _served(srv, rows.url[p]); originals[f] = f.read_bytes()
        b = bytearray(originals[f]); b[len(b) // 2] ^= 0x01; f.write_bytes(bytes(b))
    t0 = time.time()
    res = fetch_missing(dest, m, log=lambda s: None).set_index('path').status
    took = time.time() - t0
    for p in CORRUPT:
        f, url = _served(srv, rows.url[p]), rows.url[p]
        expected = rows.origin_sha256[p] or rows.sha256[p]
        for part in [p, url, mirror_url(url), f'expected sha256 {expected}', f'received {file_sha256(f)}']:
            assert part in res[p], f'{p}: the error should name {part!r}: {res[p]}'
        assert not (dest / p).exists()
    others = res.drop(CORRUPT)
    assert others.isin(['fetched', 'rebuilt']).all(), others[~others.isin(['fetched', 'rebuilt'])].to_dict()
    left = [str(q.relative_to(dest)) for q in dest.rglob('*') if q.is_file() and ('.origins' in q.parts or q.name.endswith('.part'))]
    assert left == [], f'partial, refused or used origin files left behind: {left}'
    assert not list(dest.glob('.building-*')), 'a temporary build folder was left behind'

    for f, b in originals.items(): f.write_bytes(b)
    again = fetch_missing(dest, m, log=lambda s: None).set_index('path').status
    assert again[CORRUPT].isin(['fetched', 'rebuilt']).all() and (again.drop(CORRUPT) == 'present').all(), again.to_dict()

    # every file equals the bundle's, byte for byte
    bundle = SHARED / 'data'
    differ = [p for p in m.path if (dest / p).read_bytes() != (bundle / p).read_bytes()]
    assert differ == [], f'rebuilt files that differ from the bundle: {differ}'
    assert sorted(str(q.relative_to(dest)) for q in dest.rglob('*') if q.is_file()) == sorted(m.path)
    note = (f'rebuild of the data directory from its origins: {took:.0f} s '
            f'({(res == "rebuilt").sum()} rebuilt, {(res == "fetched").sum()} copied, 2 refused), all equal to the bundle')
    print(note); record_property('ci_log', note)  # shown in the CI log after the last test (tests/ci_session.py: Notes)
