import { api, cards } from "../shared/cards.js";

export async function render(app) {
  const notes = await api("notes");
  const heading = document.createElement("h1");
  heading.textContent = "Notes";
  const text = document.createElement("p");
  text.textContent = notes.text;
  app.replaceChildren(heading, text, await cards(notes.items));
}
