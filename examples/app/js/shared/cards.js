// Renders a list of items as cards; each card's image URL comes from the API's JSON.
export async function cards(items) {
  const list = document.createElement("ul");
  list.className = "cards";
  const loads = items.map((item) => {
    const card = document.createElement("li");
    const image = new Image(item.width, item.height);
    image.alt = item.title;
    const loaded = new Promise((resolve) => { image.onload = image.onerror = resolve; });
    image.src = item.image;
    const title = document.createElement("h2");
    title.textContent = item.title;
    card.append(image, title);
    list.append(card);
    return loaded;
  });
  await Promise.all(loads);
  return list;
}

// Fetches JSON from the instance's API with the session's cookie.
export async function api(name) {
  const response = await fetch(`/api/${name}.json`, { credentials: "same-origin" });
  if (!response.ok) throw new Error(`/api/${name}.json: HTTP ${response.status}`);
  return response.json();
}
