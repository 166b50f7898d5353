// Swaps lazily loaded images in once the page has loaded.
document.addEventListener("DOMContentLoaded", () => {
  for (const img of document.querySelectorAll("img.lazy[data-src]")) {
    img.src = img.dataset.src;
  }
});
