// Partners: requests (asked and received), accept, end, and the vehicle-type map of each partnership.
import { actionRunner, h, count, field, statusLine, submitForm } from "./dom.js";
import * as api from "./api.js";

export async function partnersPage(main) {
  const { netid } = api.me();
  const status = statusLine();
  const list = h("div", { class: "tablebox" });
  const ask = h("input", { name: "partnerNetid" });

  const act = actionRunner(status, () => load());

  function mapEditor(p) {
    const text = h(
      "textarea",
      { name: "vehicleTypes", rows: 4, cols: 30 },
      Object.entries(p.vehicleTypes ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join("\n"),
    );
    return submitForm(
      {
        class: "inline",
        "aria-label": `Vehicle types of ${p.netid}`,
      },
      () => {
        const map = Object.fromEntries(
          text.value
            .split(/\n/)
            .map((l) => l.split("=").map((x) => x.trim()))
            .filter(([k, v]) => k && v),
        );
        act(`Vehicle types for ${p.netid}`, () => api.core("PUT", `/api/partners/${encodeURIComponent(p.netid)}/vehicle-types`, map));
      },
      field(`Their type = your type (${p.netid})`, text),
      h("button", { type: "submit" }, "Save map"),
    );
  }

  async function load() {
    // The list is GNet's bare array; a pending partnership says who asked in `direction`.
    const items = (await api.core("GET", `/api/partner/${encodeURIComponent(netid)}?format=full`)).map((p) => ({
      ...p,
      state: p.status === "active" ? "active" : p.direction,
    }));
    list.replaceChildren(
      h(
        "table",
        { "aria-label": "Partners" },
        h("caption", {}, `${count(items.length, "partnership or request", "partnerships and requests")}`),
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ["Company", "Status", "Contact", "Your vehicle-type map", "Their map", "Actions"].map((c) => h("th", { scope: "col" }, c)),
          ),
        ),
        h(
          "tbody",
          {},
          items.map((p) =>
            h(
              "tr",
              {},
              h("td", {}, p.name, h("br"), h("small", { class: "muted" }, `${p.netid} · ${p.coType} · ${p.plan}`)),
              h("td", {}, h("span", { class: `badge p-${p.state}` }, p.status === "active" ? "active" : `pending (${p.direction})`)),
              h("td", {}, [p.mainEmail, p.mainPhone].filter(Boolean).join(" · ") || "—"),
              h("td", {}, p.status === "active" ? mapEditor(p) : "—"),
              h(
                "td",
                {},
                Object.entries(p.partnerVehicleTypes ?? {})
                  .map(([k, v]) => `${k}→${v}`)
                  .join(", ") || "—",
              ),
              h(
                "td",
                {},
                p.state === "incoming"
                  ? h(
                      "button",
                      {
                        type: "button",
                        class: "primary",
                        onClick: () => act(`Accept ${p.netid}`, () => api.core("POST", `/api/partners/${encodeURIComponent(p.netid)}/accept`)),
                      },
                      `Accept ${p.netid}`,
                    )
                  : null,
                " ",
                h(
                  "button",
                  {
                    type: "button",
                    class: "danger",
                    onClick: () =>
                      confirm(`End with ${p.netid}?`) && act(`End ${p.netid}`, () => api.core("DELETE", `/api/partners/${encodeURIComponent(p.netid)}`)),
                  },
                  p.state === "active" ? "End" : p.state === "incoming" ? "Decline" : "Withdraw",
                ),
              ),
            ),
          ),
        ),
      ),
    );
  }

  const form = submitForm(
    {
      class: "toolbar",
      "aria-label": "Request a partnership",
    },
    () => {
      const other = ask.value.trim();
      if (other) act(`Request ${other}`, () => api.core("POST", "/api/partners", { netid: other }));
    },
    field("Partner netid", ask),
    h("button", { type: "submit", class: "primary" }, "Request partnership"),
  );
  main.replaceChildren(h("h1", {}, "Partners"), status, form, list);
  await load();
}
