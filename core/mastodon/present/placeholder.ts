// Mastodon's placeholder for a missing avatar or header (avatars/original/missing.png): one
// light grey pixel that clients stretch, so that accounts without pictures show no broken
// image. Base64, as ApiResponse carries binary bodies.

export const MISSING_IMAGE_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGO4+fAFAAU5AqPHgbWWAAAAAElFTkSuQmCC';
