// The notebook widget's front end (anywidget): the lab's page in a frame of its own, sent the
// widget's tensors as `.npz` bytes (read by the lab's own reader), or a model's files (which the
// lab opens and runs), and its settings, and sent them again when the cell changes them.
// `render` returns its cleanup.

const READY = 'attention-lab-widget:ready';
const DATA = 'attention-lab-widget:data';

/** A binary traitlet's value (a DataView, or an ArrayBuffer) as bytes. */
function bytesOf(value) {
  if (value instanceof DataView) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return new Uint8Array(value ?? []);
}

function render({ model, el }) {
  const frame = document.createElement('iframe');
  frame.title = 'Attention Lab';
  frame.style.cssText = 'width: 100%; border: 0; display: block';
  let ready = false;
  // One's attention (none when the widget shows a model), and a model's files as bytes.
  const data = () => {
    const bytes = bytesOf(model.get('data'));
    return bytes.length ? { format: 'npz', bytes, ...JSON.parse(model.get('view') || '{}') } : null;
  };
  const ownModel = () => {
    const given = model.get('model');
    if (!given?.files || !Object.keys(given.files).length) return undefined;
    const files = {};
    for (const [name, value] of Object.entries(given.files)) files[name] = bytesOf(value);
    return { name: given.name, files };
  };
  const params = () => JSON.parse(model.get('params') || '{}');
  const post = (message) => {
    if (ready) frame.contentWindow?.postMessage({ type: DATA, ...message }, '*');
  };
  const onMessage = (event) => {
    if (event.source !== frame.contentWindow || event.data?.type !== READY) return;
    ready = true;
    post({ data: data(), params: params(), model: ownModel() });
  };
  const onData = () => post({ data: data() });
  const onModel = () => post({ model: ownModel(), params: params() });
  const onParams = () => post({ params: params() });
  const onHeight = () => {
    frame.style.height = `${model.get('height')}px`;
  };
  // A new link (other panels, another language) needs a new page.
  const onLink = () => {
    ready = false;
    frame.srcdoc = model.get('shell').replace('__ATTENTION_LAB_LINK__', () => JSON.stringify(model.get('link')).replaceAll('</', '<\\/'));
  };
  window.addEventListener('message', onMessage);
  model.on('change:data', onData);
  model.on('change:view', onData);
  model.on('change:model', onModel);
  model.on('change:params', onParams);
  model.on('change:height', onHeight);
  model.on('change:link', onLink);
  onHeight();
  onLink();
  el.appendChild(frame);
  return () => {
    window.removeEventListener('message', onMessage);
    model.off('change:data', onData);
    model.off('change:view', onData);
    model.off('change:model', onModel);
    model.off('change:params', onParams);
    model.off('change:height', onHeight);
    model.off('change:link', onLink);
    frame.remove();
  };
}

export default { render };
