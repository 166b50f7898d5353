// The shell's only script: it adds the stylesheet and the display font, loads the route's chunk
// with import(), lets the route render from the API, then reports the view.
const routes = { "/": "home", "/notes": "notes" };
const route = routes[location.pathname] ?? "home";

const stylesheet = document.createElement("link");
stylesheet.rel = "stylesheet";
stylesheet.href = "/css/app.css";
const styled = new Promise((resolve) => { stylesheet.onload = stylesheet.onerror = resolve; });
document.head.append(stylesheet);

const font = new FontFace("Display", "url(/fonts/display.woff2) format('woff2')", { weight: "700" });
document.fonts.add(font);

const [chunk] = await Promise.all([import(`./routes/${route}.js`), font.load().catch(() => null), styled]);
const app = document.getElementById("app");
await chunk.render(app);
app.dataset.ready = "true";

fetch("/api/analytics", {
  method: "POST",
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify({ route, at: "render" }),
}).catch(() => {});
