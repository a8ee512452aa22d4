// Tiny DOM helpers: the console builds its pages with these instead of a framework (no build step, nothing to vendor).

/** An HTML element: h("button", { onClick, class: "primary" }, "Save"). Strings become text nodes (never HTML). */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  setProps(el, props);
  append(el, children);
  return el;
}

/** A form whose submit stays on the page and runs `onSubmit`; `props` are the form's own (class, aria-label, …). */
export function submitForm(props, onSubmit, ...children) {
  return h("form", { ...props, onSubmit: (e) => (e.preventDefault(), onSubmit()) }, ...children);
}

/** A count with its noun in the right number: count(1, "booking") is "1 booking", count(2, "entry", "entries") "2 entries". */
export function count(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** An SVG element with attributes. */
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs ?? {})) if (v != null) el.setAttribute(k, String(v));
  append(el, children);
  return el;
}

function setProps(el, props) {
  for (const [k, v] of Object.entries(props ?? {})) {
    if (v == null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2).toLowerCase(), v);
    else if (k === "class") el.className = v;
    else if (k === "value" || k === "checked" || k === "selected") el[k] = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
}

function append(el, children) {
  for (const c of children.flat(Infinity)) if (c != null && c !== false) el.append(c instanceof Node ? c : String(c));
}

let fieldSeq = 0;
/** A labelled form field; `control` is an input, select or textarea (its id is set here). */
export function field(label, control, hint) {
  const id = control.id || `f${++fieldSeq}`;
  control.id = id;
  const hintId = hint ? `${id}-hint` : undefined;
  if (hintId) control.setAttribute("aria-describedby", hintId);
  return h("div", { class: "field" }, h("label", { for: id }, label), control, hint ? h("small", { id: hintId, class: "muted" }, hint) : null);
}

/** A select with options given as [value, label] pairs or plain values. */
export function select(name, options, value) {
  return h(
    "select",
    { name },
    options.map((o) => {
      const [v, l] = Array.isArray(o) ? o : [o, o];
      return h("option", { value: v, selected: v === value }, l);
    }),
  );
}

/** A status line that screen readers announce. */
export function statusLine() {
  return h("p", { role: "status", "aria-live": "polite", class: "status" });
}

/**
 * A page's action runner: `act(label, fn)` runs `fn`, then says "label: done." in `status` and reloads the page's data
 * (`reload`), or shows what went wrong there.
 */
export function actionRunner(status, reload) {
  return async (label, fn) => {
    try {
      await fn();
      status.textContent = `${label}: done.`;
      await reload();
    } catch (error) {
      showError(status, error);
    }
  };
}

/** Shows an API error (its message, and each failing field) in `where`. */
export function showError(where, error) {
  where.replaceChildren(
    h(
      "div",
      { role: "alert", class: "error" },
      error?.message ?? String(error),
      error?.errors?.length
        ? h(
            "ul",
            {},
            error.errors.slice(0, 50).map((e) => h("li", {}, `${e.field}: ${e.message}`)),
          )
        : null,
    ),
  );
}

/** Unix seconds → "2027-01-15 08:00 UTC". */
export function when(unix) {
  if (unix == null) return "";
  return new Date(unix * 1000).toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

/**
 * Asks before an act that cannot be undone: a modal dialog with `message`, a `confirm` button and "Go back".
 * Resolves true when confirmed; false when dismissed (Go back, Escape).
 */
export function confirmDialog(title, message, confirm) {
  return new Promise((resolve) => {
    const titleId = `dlg${++fieldSeq}`;
    const yes = h("button", { type: "button", class: "danger", onClick: () => done(true) }, confirm);
    const no = h("button", { type: "button", onClick: () => done(false) }, "Go back");
    const dialog = h(
      "dialog",
      { class: "card confirm", "aria-labelledby": titleId },
      h("h2", { id: titleId }, title),
      h("p", {}, message),
      h("div", { class: "toolbar" }, yes, no),
    );
    let answered = false;
    function done(answer) {
      if (answered) return;
      answered = true;
      dialog.close();
      dialog.remove();
      resolve(answer);
    }
    dialog.addEventListener("cancel", () => done(false));
    document.body.append(dialog);
    dialog.showModal();
    no.focus();
  });
}

/**
 * Shows an API error's failing fields at the controls of `form` whose `name` the field names (marked aria-invalid,
 * the message beside them); the message and any field without a control go to `rest`. No error: clears both.
 */
export function showFormErrors(form, rest, error) {
  for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
  for (const el of form.querySelectorAll(".field-error")) el.remove();
  if (!error) return rest.replaceChildren();
  const unplaced = [];
  for (const e of error.errors ?? []) {
    const name = String(e.field ?? "");
    const control = form.elements.namedItem(name) ?? form.elements.namedItem(name.replace(/(\[\d+\]|\.[^.]*)$/, ""));
    const box = control instanceof Element ? control.closest(".field") : null;
    if (!box) {
      unplaced.push(e);
      continue;
    }
    control.setAttribute("aria-invalid", "true");
    box.append(h("small", { class: "field-error", role: "alert" }, `${e.field}: ${e.message}`));
  }
  showError(rest, { message: error.message ?? String(error), errors: unplaced });
  form.querySelector("[aria-invalid]")?.focus();
}
