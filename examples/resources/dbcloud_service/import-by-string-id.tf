import {
  to = dbcloud_service.example
  id = "rp1pz7uyae"
}
