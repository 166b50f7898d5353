import { api, cards } from "../shared/cards.js";

export async function render(app) {
  const items = await api("items");
  const profile = await api("profile");
  const heading = document.createElement("h1");
  heading.textContent = `Field notes for ${profile.name}`;
  app.replaceChildren(heading, await cards(items.items));
}
