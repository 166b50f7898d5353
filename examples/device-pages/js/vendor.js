// vendor
