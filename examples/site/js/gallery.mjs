// Marks the gallery as ready; a module script, fetched as a sub-resource like any other.
export const ready = true;
document.documentElement.dataset.gallery = "ready";
