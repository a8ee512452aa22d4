// Statements (#/statements/<YYYY-MM>/<counterparty>): what the company and each counterparty owe each other for a
// month (GET /api/statements), one statement's lines, totals and disputes, its CSV download, and disputing a line or
// answering a dispute (POST /api/statements/disputes, …/{id}/answer). docs/settlement.md says what each figure means.
import { actionRunner, h, field, showError, statusLine, submitForm, when } from "./dom.js";
import * as api from "./api.js";

const thisMonth = () => new Date().toISOString().slice(0, 7);
const totalsText = (totals) => (totals.length === 0 ? "nothing owed" : totals.map((t) => `${t.net} ${t.currency}`).join(", "));

/** The CSV of a statement, fetched with the session's token and saved as a file. */
async function downloadCsv(period, counterparty) {
  const query = new URLSearchParams({ period, counterparty, format: "csv" });
  const res = await fetch(`/api/statements?${query}`, { headers: { authorization: `Bearer ${api.accessToken()}` } });
  if (!res.ok) throw new api.ApiError(res.status, await res.json().catch(() => ({ message: res.statusText })));
  const url = URL.createObjectURL(await res.blob());
  const a = h("a", { href: url, download: `statement-${period}-${counterparty}.csv` });
  document.body.append(a);
  a.click();
  a.remove();
  URL.revokeObjectURL(url);
}

export async function statementsPage(main) {
  const [, , period = thisMonth(), counterparty] = location.hash.replace(/^#/, "").split("/").map(decodeURIComponent);
  const status = statusLine();
  const month = h("input", { name: "period", type: "month", value: period });
  const picker = submitForm(
    { class: "inline", "aria-label": "Month" },
    () => (location.hash = `#/statements/${month.value}`),
    field("Month (pickups, UTC)", month),
    h("button", { type: "submit" }, "Show"),
  );
  const body = h("div", {});
  main.replaceChildren(h("h1", {}, "Statements"), picker, status, body);

  const act = actionRunner(status, () => load());

  async function list() {
    const items = (await api.core("GET", `/api/statements?period=${encodeURIComponent(period)}`)).data;
    body.replaceChildren(
      h(
        "table",
        { "aria-label": `Counterparties in ${period}` },
        h("caption", {}, items.length === 0 ? `No statement for ${period}` : `${items.length} counterparties in ${period} (net: owed to you − you owe)`),
        h("thead", {}, h("tr", {}, h("th", {}, "Counterparty"), h("th", {}, "State"), h("th", {}, "Lines"), h("th", {}, "Net"))),
        h(
          "tbody",
          {},
          items.map((c) =>
            h(
              "tr",
              {},
              h("td", {}, h("a", { href: `#/statements/${period}/${encodeURIComponent(c.counterparty)}` }, c.counterparty)),
              h("td", {}, c.state),
              h("td", {}, String(c.lines)),
              h("td", {}, totalsText(c.totals)),
            ),
          ),
        ),
      ),
    );
  }

  function disputeForm(line) {
    const reason = h("input", { name: "reason", maxlength: 1000, required: true });
    return submitForm(
      { class: "inline", "aria-label": `Dispute ${line.requesterResNo}` },
      () => act("Dispute", () => api.core("POST", "/api/statements/disputes", { transactionId: line.transactionId, reason: reason.value })),
      field("Reason", reason),
      h("button", { type: "submit" }, "Dispute"),
    );
  }

  function answerForm(d) {
    const answer = h("input", { name: "answer", maxlength: 1000 });
    const path = `/api/statements/disputes/${encodeURIComponent(d.id)}/answer`;
    return h(
      "span",
      {},
      h("button", { type: "button", onClick: () => act("Accepted", () => api.core("POST", path, { accept: true })) }, "Accept"),
      submitForm(
        { class: "inline", "aria-label": `Answer ${d.id}` },
        () => act("Answered", () => api.core("POST", path, { answer: answer.value })),
        field("Answer", answer),
        h("button", { type: "submit" }, "Answer"),
      ),
    );
  }

  async function one() {
    const s = (await api.core("GET", `/api/statements?period=${encodeURIComponent(period)}&counterparty=${encodeURIComponent(counterparty)}`)).data;
    const { netid } = api.me();
    body.replaceChildren(
      h(
        "p",
        {},
        h("a", { href: `#/statements/${period}` }, `← ${period}`),
        " ",
        h("button", { type: "button", onClick: () => downloadCsv(period, s.counterparty).catch((e) => showError(status, e)) }, "Download CSV"),
      ),
      h("h2", {}, `${s.counterparty}, ${s.period}: ${s.state}`),
      h("p", {}, `Issued ${when(s.issuedAt)}; final ${when(s.finalAt)} unless disputed.`),
      h(
        "table",
        { "aria-label": "Totals" },
        h("thead", {}, h("tr", {}, h("th", {}, "Currency"), h("th", {}, "You owe"), h("th", {}, "Owed to you"), h("th", {}, "Net"))),
        h("tbody", {}, s.totals.map((t) => h("tr", {}, h("td", {}, t.currency), h("td", {}, t.youOwe), h("td", {}, t.owedToYou), h("td", {}, t.net)))),
      ),
      h(
        "table",
        { "aria-label": "Lines" },
        h("caption", {}, `${s.lines.length} lines`),
        h("thead", {}, h("tr", {}, ["Booking", "Pickup", "Your role", "Kind", "Amount", "Status", "Disputed", ""].map((x) => h("th", {}, x)))),
        h(
          "tbody",
          {},
          s.lines.map((l) =>
            h(
              "tr",
              {},
              h("td", {}, h("a", { href: `#/bookings/${encodeURIComponent(l.transactionId)}` }, l.requesterResNo)),
              h("td", {}, l.pickup),
              h("td", {}, l.role),
              h("td", {}, l.kind),
              h("td", {}, `${l.amount} ${l.currency}`),
              h("td", {}, l.status),
              h("td", {}, l.disputed ? "yes" : "no"),
              h("td", {}, l.disputed || s.state === "FINAL" ? "" : disputeForm(l)),
            ),
          ),
        ),
      ),
      h("h3", {}, "Disputes"),
      s.disputes.length === 0
        ? h("p", {}, "None.")
        : h(
            "ul",
            {},
            s.disputes.map((d) =>
              h(
                "li",
                {},
                `${d.raisedBy} on ${d.transactionId}: “${d.reason}” — ${d.state}${d.answer ? `: “${d.answer}”` : ""} `,
                d.state === "OPEN" && d.raisedBy.toLowerCase() !== netid.toLowerCase() ? answerForm(d) : null,
              ),
            ),
          ),
    );
  }

  const load = () => (counterparty ? one() : list());
  try {
    await load();
  } catch (error) {
    showError(status, error);
  }
}
