// <attention-lab>: the Attention Lab as an element for course pages.
//
//   <script type="module" src="https://your.site/attention-lab/attention-lab.js"></script>
//   <attention-lab sentence="the cat sat" panels="weights,head-view" mask="causal" lang="zh"></attention-lab>
//
// Each element runs the lab (the index.html beside this script) in a frame of its own, started
// only when the element nears the viewport, so a page may hold many. Attributes are the lab's
// link parameters (README, "Links"), reflected as properties; changing one after the start
// changes the running lab without reloading it. `src` names a JSON file of one's own attention
// ({"attention": …, "tokens": …} or {"q": …, "k": …, "v": …}), fetched by the course page and
// handed to the lab. Without `height` the element fits the lab's content (the frame reports its
// height); with it, it keeps that many pixels and the frame scrolls. Events: `change` (detail: the lab's state, as attentionLab.state() gives it)
// whenever the state changes, and `error` (detail: {error}) when the lab refuses something.
// custom-elements.json, beside this file, lists it all.

const LAB = new URL('./', import.meta.url);

// The link parameters an element takes, with how each goes into a `set` message.
const number = (v) => (v === null ? undefined : Number(v));
const text = (v) => (v === null ? undefined : v);
const PARAMS = {
  sentence: text,
  source_sentence: text,
  model: text,
  d_model: number,
  n_heads: number,
  n_kv_heads: number,
  d_k: number,
  d_v: number,
  temperature: number,
  seed: number,
  layer_norm: text,
  backend: text,
  softcap: number,
  qk_norm: (v) => (v === null ? undefined : v === '1' || v === 'true'),
  sink_logits: (v) => (v === null ? undefined : v.split(',').map(Number)),
};
// The mask and its numbers become one `mask` object.
const MASK = ['mask', 'radius', 'valid_len', 'sink_tokens'];
// So do the positions, and the FlashAttention tiles.
const POSITION = ['position', 'base', 'pairing', 'offset'];
const BLOCK = ['block_rows', 'block_cols'];
// View settings: counted from 1 where the page counts from 1.
const VIEW = {
  head: number,
  layer: number,
  step: number,
  lang: text,
  theme: text,
  view: text,
  scale: text,
  lesson: text,
  panels: (v) => (v === null ? undefined : v.split(',').map((p) => p.trim()).filter(Boolean)),
};
const OWN = ['src', 'height'];
const ATTRIBUTES = [...Object.keys(PARAMS), ...MASK, ...POSITION, ...BLOCK, ...Object.keys(VIEW), ...OWN];

function maskOf(element) {
  const kind = element.getAttribute('mask');
  if (kind === null) return undefined;
  const mask = { kind };
  for (const name of ['radius', 'valid_len', 'sink_tokens']) {
    const value = element.getAttribute(name);
    if (value !== null) mask[name] = Number(value);
  }
  return mask;
}

function positionOf(element) {
  const kind = element.getAttribute('position');
  if (kind === null) return undefined;
  const position = { kind };
  for (const name of ['base', 'offset']) {
    const value = element.getAttribute(name);
    if (value !== null) position[name] = Number(value);
  }
  const pairing = element.getAttribute('pairing');
  if (pairing !== null) position.pairing = pairing;
  return position;
}

function blockOf(element) {
  const rows = element.getAttribute('block_rows');
  const cols = element.getAttribute('block_cols');
  if (rows === null && cols === null) return undefined;
  const block = {};
  if (rows !== null) block.rows = Number(rows);
  if (cols !== null) block.cols = Number(cols);
  return block;
}

export class AttentionLabElement extends HTMLElement {
  static observedAttributes = ATTRIBUTES;

  #frame = null;
  #observer = null;
  #ready = false;
  #state = null;
  #loaded = null;
  /** The height the lab's content asked for, in CSS pixels (0: not yet). */
  #fitted = 0;

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    root.innerHTML = `<style>
      :host { display: block; position: relative; min-height: 120px; }
      iframe { display: block; width: 100%; border: 0; }
      .waiting { display: grid; place-items: center; height: 100%; min-height: inherit;
        border: 1px dashed #999a; border-radius: 8px; font: 14px system-ui, sans-serif; color: #666; }
    </style><div class="waiting" part="placeholder">Attention Lab · 注意力实验室</div>`;
  }

  /** The lab's last state (what `attentionLab.state()` returns inside it), or null. */
  get state() {
    return this.#state;
  }

  connectedCallback() {
    // Without a `height`, 560 px until the lab says how tall its content is, then that.
    this.style.height ||= `${Number(this.getAttribute('height')) || 560}px`;
    // Started only near the viewport: a page of many labs loads the ones read.
    this.#observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        this.#observer.disconnect();
        this.#start();
      }
    }, { rootMargin: '300px' });
    this.#observer.observe(this);
  }

  disconnectedCallback() {
    this.#observer?.disconnect();
    window.removeEventListener('message', this.#onMessage);
  }

  attributeChangedCallback(name, old, value) {
    if (old === value || !this.#ready) return;
    if (name === 'height') {
      this.style.height = `${Number(value) || this.#fitted || 560}px`;
    } else if (name === 'src') {
      this.#load();
    } else {
      this.#post({ type: 'attention-lab:set', params: this.#params([name]) });
    }
  }

  /** The `set` message's params for `names` (every attribute when none are named). */
  #params(names = ATTRIBUTES) {
    const params = {};
    for (const name of names) {
      if (MASK.includes(name)) {
        const mask = maskOf(this);
        if (mask) params.mask = mask;
      } else if (POSITION.includes(name)) {
        const position = positionOf(this);
        if (position) params.position = position;
      } else if (BLOCK.includes(name)) {
        const block = blockOf(this);
        if (block) params.block = block;
      } else if (name in PARAMS || name in VIEW) {
        const value = (PARAMS[name] ?? VIEW[name])(this.getAttribute(name));
        if (value !== undefined) params[name] = value;
      }
    }
    return params;
  }

  #start() {
    const query = new URLSearchParams({ embed: '1', origin: location.origin });
    for (const name of ATTRIBUTES) {
      const value = this.getAttribute(name);
      if (value !== null && !OWN.includes(name)) query.set(name, value);
    }
    const frame = document.createElement('iframe');
    frame.title = this.getAttribute('title') || 'Attention Lab';
    frame.style.height = '100%';
    frame.src = new URL(`index.html?${query}`, LAB).href;
    window.addEventListener('message', this.#onMessage);
    this.shadowRoot.querySelector('.waiting').replaceWith(frame);
    this.#frame = frame;
  }

  #onMessage = (event) => {
    if (!this.#frame || event.source !== this.#frame.contentWindow) return;
    const data = event.data;
    if (!data || typeof data.type !== 'string') return;
    if (data.type === 'attention-lab:state') {
      const first = !this.#ready;
      this.#ready = true;
      this.#state = data.state;
      if (first && this.hasAttribute('src')) this.#load();
      this.dispatchEvent(new CustomEvent('change', { detail: data.state }));
    } else if (data.type === 'attention-lab:size') {
      this.#fitted = Math.ceil(Number(data.height)) || 0;
      if (this.#fitted > 0 && !this.hasAttribute('height')) this.style.height = `${this.#fitted}px`;
    } else if (data.type === 'attention-lab:error') {
      this.dispatchEvent(new CustomEvent('error', { detail: { error: data.error } }));
    }
  };

  /** Fetches `src` (from wherever this page may fetch) and hands it to the lab. */
  async #load() {
    const src = this.getAttribute('src');
    if (src === null) {
      this.#post({ type: 'attention-lab:load', data: null });
      return;
    }
    if (this.#loaded === src) return;
    this.#loaded = src;
    try {
      const url = new URL(src, document.baseURI);
      const response = await fetch(url);
      if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
      const data = await response.json();
      // `url` rides along so that the lab's "Open the full lab" link can name the file too.
      this.#post({ type: 'attention-lab:load', data, name: src.split('/').pop(), url: url.href });
    } catch (error) {
      this.#loaded = null;
      this.dispatchEvent(new CustomEvent('error', { detail: { error: `${src}: ${error.message}` } }));
    }
  }

  #post(message) {
    this.#frame?.contentWindow?.postMessage(message, LAB.origin);
  }
}

// Properties reflect attributes: element.sentence = 'a b c' sets sentence="a b c".
for (const name of ATTRIBUTES) {
  Object.defineProperty(AttentionLabElement.prototype, name, {
    get() {
      return this.getAttribute(name);
    },
    set(value) {
      if (value === null || value === undefined) this.removeAttribute(name);
      else this.setAttribute(name, String(value));
    },
    configurable: true,
  });
}

if (!customElements.get('attention-lab')) {
  customElements.define('attention-lab', AttentionLabElement);
}
