/**
 * What makes the served Postman collection pass when run as a whole (newman, Postman's runner; #38): every request
 * has a test, and the requests that sign a credential out run last, in a folder of their own, so that no request
 * after them finds its token released.
 */
type Json = Record<string, any>;
interface Item {
  name: string;
  request?: Json;
  item?: Item[];
  event?: Json[];
  [key: string]: unknown;
}

export const SIGN_OUT_FOLDER = "Sign out (runs last)";
/** Requests that release the collection's own credentials. */
const SIGNS_OUT = [/^api\/token\/release$/, /^Platform\.svc\/releaseToken(\/|$)/i];
const pathOf = (item: Item) => (item.request?.url?.path ?? []).join("/");

/** Lines of a test every generated request gets: still signed in, no server error, and a readable body. */
export const REQUEST_TEST = [
  'pm.test("answered, still signed in, no server error", function () {',
  "  pm.expect(pm.response.code).to.not.be.oneOf([401, 500, 502, 503]);",
  "});",
  'pm.test("a readable body", function () {',
  '  var type = pm.response.headers.get("Content-Type") || "";',
  '  if (type.indexOf("json") >= 0) pm.expect(function () { pm.response.json(); }).to.not.throw();',
  '  else pm.expect(pm.response.text()).to.be.a("string");',
  "});",
];

/**
 * Moves the sign-out requests out of their folders into a last folder, each after a fresh sign-in of its kind (a
 * copy of the collection's token request), so that one release never leaves the next with a released token; returns
 * the new top-level list.
 */
export function signOutLast(items: Item[]): Item[] {
  const moved: Item[] = [];
  const strip = (list: Item[]): Item[] =>
    list.flatMap((i) => {
      if (i.item) return [{ ...i, item: strip(i.item) }];
      if (SIGNS_OUT.some((re) => re.test(pathOf(i)))) {
        moved.push(i);
        return [];
      }
      return [i];
    });
  const kept = strip(items).filter((i) => !i.item || i.item.length > 0);
  const flat = (list: Item[]): Item[] => list.flatMap((i) => (i.item ? flat(i.item) : [i]));
  const signIn = (path: string) => flat(kept).find((i) => i.request?.method === "POST" && pathOf(i) === path);
  const folder = moved.flatMap((release) => {
    const login = signIn(/releaseToken/i.test(pathOf(release)) ? "Platform.svc/getToken2" : "api/token");
    return login ? [{ ...structuredClone(login), name: `Sign in again for: ${release.name}` }, release] : [release];
  });
  return moved.length ? [...kept, { name: SIGN_OUT_FOLDER, item: folder }] : kept;
}

/** Gives every request without a test script the generic test; requests with one get it too, besides their own. */
export function testEveryRequest(items: Item[]): void {
  for (const i of items) {
    if (i.item) {
      testEveryRequest(i.item);
      continue;
    }
    const events = (i.event ??= []);
    const test = events.find((e) => e.listen === "test");
    if (!test) events.push({ listen: "test", script: { type: "text/javascript", exec: [...REQUEST_TEST] } });
    else if (!test.script.exec.some((line: string) => line.includes("still signed in"))) test.script.exec.push(...REQUEST_TEST);
  }
}

/**
 * A stream never ends, so a collection run would wait on it: the event stream request is skipped in runs unless the
 * collection variable `followEvents` is "true" (send it alone in Postman to watch the events).
 */
export function skipStreamsInRuns(items: Item[]): void {
  for (const i of items) {
    if (i.item) skipStreamsInRuns(i.item);
    else if (pathOf(i) === "api/events")
      (i.event ??= []).push({
        listen: "prerequest",
        script: { type: "text/javascript", exec: ['if (pm.collectionVariables.get("followEvents") !== "true") pm.execution.skipRequest();'] },
      });
  }
}
