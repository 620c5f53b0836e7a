// <attention-lab>: the Attention Lab as an element for course pages.
//
//   <script src="https://your.site/attention-lab/attention-lab.js" defer></script>
//   <attention-lab sentence="the cat sat" panels="weights,head-view" mask="causal" lang="zh"></attention-lab>
//
// Each element runs the lab (the index.html beside this script) in a frame of its own, started
// only when the element nears the viewport, so a page may hold many. Attributes are the lab's
// link parameters (README, "Links"), reflected as typed properties (`el.temperature` is a number,
// `el.qk_norm` a boolean); changing one after the start changes the running lab without
// reloading it. `src` names a JSON file of one's own attention ({"attention": …, "tokens": …} or
// {"q": …, "k": …, "v": …}), fetched by the course page and handed to the lab; `model-src` names a
// Hugging Face model folder (its address), which the lab fetches and runs. Without `height`
// the element fits the lab's content (the frame reports its height); with it, it keeps that many
// pixels and the frame scrolls. Events: `attention-lab-change` (detail: the lab's state, as
// attentionLab.state() gives it; it bubbles and crosses shadow roots) whenever the state changes,
// and `error` (detail: {error}) when the lab refuses something. Moving a started element keeps
// its lab (at its attributes). custom-elements.json, beside this file, lists it all.
//
// A classic script, so that a course page on another origin loads it from a plain static host
// (a module script from another origin needs CORS headers, and without them every element would
// stay an empty box): no import or export, the class on `window.AttentionLabElement`. Loaded as a
// module it works the same.

(() => {
// The lab is the index.html beside this script: its address, whether the script runs classic
// (document.currentScript) or as a module (then found by its src).
const LAB = new URL('./', document.currentScript?.src
  || [...document.scripts].map((s) => s.src).find((src) => /attention-lab\.js(\?|#|$)/.test(src))
  || location.href);

// BEGIN ATTRIBUTES
// Written from the lab's tables (src/ui/logic/element.rs) by
// `UPDATE_EXPECT=1 cargo test --test documents`: edit those, not this.
const ATTRIBUTES = {
  model: { type: 'string', group: ['model'] },
  sentence: { type: 'string', group: ['sentence'] },
  source_sentence: { type: 'string', group: ['source_sentence'] },
  d_model: { type: 'number', group: ['d_model'] },
  n_heads: { type: 'number', group: ['n_heads'] },
  n_kv_heads: { type: 'number', group: ['n_kv_heads'] },
  d_k: { type: 'number', group: ['d_k'] },
  d_v: { type: 'number', group: ['d_v'] },
  temperature: { type: 'number', group: ['temperature'] },
  mask: { type: 'string', group: ['mask', 'valid_len', 'radius', 'sink_tokens', 'cells'] },
  valid_len: { type: 'number', group: ['mask', 'valid_len', 'radius', 'sink_tokens', 'cells'] },
  radius: { type: 'number', group: ['mask', 'valid_len', 'radius', 'sink_tokens', 'cells'] },
  sink_tokens: { type: 'number', group: ['mask', 'valid_len', 'radius', 'sink_tokens', 'cells'] },
  cells: { type: 'string', group: ['mask', 'valid_len', 'radius', 'sink_tokens', 'cells'] },
  seed: { type: 'number', group: ['seed'] },
  block_rows: { type: 'number', group: ['block_rows', 'block_cols'] },
  block_cols: { type: 'number', group: ['block_rows', 'block_cols'] },
  layer_norm: { type: 'string', group: ['layer_norm'] },
  position: { type: 'string', group: ['position', 'base', 'pairing', 'offset'] },
  base: { type: 'number', group: ['position', 'base', 'pairing', 'offset'] },
  pairing: { type: 'string', group: ['position', 'base', 'pairing', 'offset'] },
  offset: { type: 'number', group: ['position', 'base', 'pairing', 'offset'] },
  softcap: { type: 'number', group: ['softcap'] },
  qk_norm: { type: 'boolean', group: ['qk_norm'] },
  sink_logits: { type: 'string', group: ['sink_logits'] },
  linear: { type: 'string', group: ['linear', 'chunk'] },
  chunk: { type: 'number', group: ['linear', 'chunk'] },
  output_gate: { type: 'boolean', group: ['output_gate'] },
  backend: { type: 'string', group: ['backend'] },
  ablate: { type: 'string', group: ['ablate'] },
  head: { type: 'number', group: ['head'] },
  layer: { type: 'number', group: ['layer'] },
  step: { type: 'number', group: ['step'] },
  lang: { type: 'string', group: ['lang'] },
  theme: { type: 'string', group: ['theme'] },
  view: { type: 'string', group: ['view'] },
  lesson: { type: 'string', group: ['lesson'] },
  scale: { type: 'string', group: ['scale'] },
  panels: { type: 'string', group: ['panels'] },
  src: { type: 'string', group: [] },
  'model-src': { type: 'string', group: [] },
  height: { type: 'number', group: [] },
};
// END ATTRIBUTES

/** Attributes the element handles itself (an empty group): the file it fetches, its height. */
const OWN = Object.keys(ATTRIBUTES).filter((name) => ATTRIBUTES[name].group.length === 0);

class AttentionLabElement extends HTMLElement {
  static observedAttributes = Object.keys(ATTRIBUTES);

  #frame = null;
  #observer = null;
  #listening = false;
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
      iframe { display: block; width: 100%; height: 100%; border: 0; }
      .waiting { display: grid; place-items: center; height: 100%; min-height: inherit;
        border: 1px dashed #999a; border-radius: 8px; font: 14px system-ui, sans-serif; color: #666; }
    </style><div class="waiting" part="placeholder">Attention Lab · 注意力实验室</div>`;
    // Started only near the viewport: a page of many labs loads the ones read. One observer
    // for the element's life, whether it is moved or not.
    this.#observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        this.#observer.unobserve(this);
        this.#start();
      }
    }, { rootMargin: '300px' });
  }

  /** The lab's last state (what `attentionLab.state()` returns inside it), or null. */
  get state() {
    return this.#state;
  }

  connectedCallback() {
    // Without a `height`, 560 px until the lab says how tall its content is, then that.
    this.style.height ||= `${Number(this.getAttribute('height')) || 560}px`;
    if (!this.#frame) {
      this.#observer.observe(this);
      return;
    }
    // Moved in the page: the frame reloads wherever it goes, so it loads the lab at the
    // element's attributes as they are now.
    this.#listen(true);
    this.#ready = false;
    this.#loaded = null;
    this.#frame.src = this.#address();
  }

  disconnectedCallback() {
    this.#observer.unobserve(this);
    this.#listen(false);
  }

  attributeChangedCallback(name, old, value) {
    if (old === value || !this.#ready) return;
    if (name === 'height') {
      this.style.height = `${Number(value) || this.#fitted || 560}px`;
    } else if (name === 'src') {
      this.#load();
    } else if (name === 'model-src') {
      if (value !== null) this.#post({ type: 'attention-lab:link', query: `model_src=${encodeURIComponent(new URL(value, document.baseURI).href)}` });
    } else {
      // The attribute and those read with it (a mask's kind and its numbers), as a link, and
      // those of them no longer set (a removed attribute goes back to the lab's default).
      const group = ATTRIBUTES[name].group;
      const cleared = group.filter((other) => this.getAttribute(other) === null);
      this.#post({ type: 'attention-lab:link', query: this.#query(group), cleared });
    }
  }

  /** The attributes `names` that are set, as a link's query. */
  #query(names) {
    const query = new URLSearchParams();
    for (const name of names) {
      const value = this.getAttribute(name);
      if (value !== null) query.set(name, value);
    }
    return query.toString();
  }

  /** The lab's address for the element's attributes now. */
  #address() {
    const names = Object.keys(ATTRIBUTES).filter((name) => !OWN.includes(name));
    const query = new URLSearchParams(this.#query(names));
    // The model folder's address, as the lab (in its frame) fetches it: absolute.
    const modelSrc = this.getAttribute('model-src');
    if (modelSrc !== null) query.set('model_src', new URL(modelSrc, document.baseURI).href);
    query.set('embed', '1');
    query.set('origin', location.origin);
    return new URL(`index.html?${query}`, LAB).href;
  }

  #listen(on) {
    if (on && !this.#listening) window.addEventListener('message', this.#onMessage);
    if (!on && this.#listening) window.removeEventListener('message', this.#onMessage);
    this.#listening = on;
  }

  #start() {
    if (this.#frame) return;
    const frame = document.createElement('iframe');
    frame.title = this.getAttribute('title') || 'Attention Lab';
    frame.src = this.#address();
    this.#listen(true);
    this.shadowRoot.querySelector('.waiting')?.replaceWith(frame);
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
      this.dispatchEvent(new CustomEvent('attention-lab-change', { detail: data.state, bubbles: true, composed: true }));
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

// Properties reflect attributes, typed: a number attribute's property is a number (null when
// the attribute is absent or not a number), a flag's a boolean; setting one writes the attribute
// (null or undefined removes it).
for (const [name, { type }] of Object.entries(ATTRIBUTES)) {
  Object.defineProperty(AttentionLabElement.prototype, name, {
    get() {
      const value = this.getAttribute(name);
      if (value === null) return null;
      if (type === 'number') return value.trim() === '' || Number.isNaN(Number(value)) ? null : Number(value);
      if (type === 'boolean') return value === '1' || value === 'true';
      return value;
    },
    set(value) {
      if (value === null || value === undefined) this.removeAttribute(name);
      else if (type === 'boolean') this.setAttribute(name, value === true || value === '1' || value === 'true' ? '1' : '0');
      else this.setAttribute(name, String(value));
    },
    configurable: true,
    enumerable: true,
  });
}

if (!customElements.get('attention-lab')) {
  customElements.define('attention-lab', AttentionLabElement);
}
// The class in use (the first one defined, should the script be included twice).
window.AttentionLabElement = customElements.get('attention-lab');
})();
