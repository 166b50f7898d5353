// shop
