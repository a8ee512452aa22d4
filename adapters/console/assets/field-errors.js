// The API's 400 errors shown at the controls they name: each control carries its API field path in data-field
// (`routes[3].to.radiusKm`); an error goes to the control whose path is the longest prefix of the error's field.
import { h, showError } from "./dom.js";

/** Does `field` name `path` or something inside it (`routes[0].vehTypes[1]` is inside `routes[0].vehTypes`)? */
const within = (field, path) => field === path || field.startsWith(`${path}.`) || field.startsWith(`${path}[`);

/** Clears the previous messages in `form`; shows `error`'s field errors beside their controls, the rest in `rest`. */
export function showFieldErrors(form, rest, error) {
  for (const el of form.querySelectorAll("[data-field]")) el.removeAttribute("aria-invalid");
  for (const el of form.querySelectorAll(".field-error")) el.remove();
  if (!error) return rest.replaceChildren();
  const controls = [...form.querySelectorAll("[data-field]")].filter((el) => !el.closest("[hidden]"));
  const unplaced = [];
  for (const e of error.errors ?? []) {
    const name = String(e.field ?? "");
    const target = controls.filter((el) => within(name, el.dataset.field)).sort((a, b) => b.dataset.field.length - a.dataset.field.length)[0];
    if (!target) {
      unplaced.push(e);
      continue;
    }
    target.setAttribute("aria-invalid", "true");
    const box = target.closest(".field, td") ?? target.parentElement;
    box.append(h("small", { class: "field-error", role: "alert" }, `${e.field}: ${e.message}`));
  }
  if (!error.errors?.length || unplaced.length) showError(rest, { message: error.message ?? String(error), errors: unplaced });
  else rest.replaceChildren(h("p", { role: "alert", class: "error" }, `${error.message ?? "Not saved"} — nothing was saved; see the fields marked.`));
  form.querySelector("[aria-invalid]")?.focus();
}

/** Tags a control with the API field it stands for. */
export function bound(path, el) {
  el.dataset.field = path;
  return el;
}
