// blog
