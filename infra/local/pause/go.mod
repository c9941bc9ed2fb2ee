// The pod sandbox's pause process, built here (a static binary of 1 MB) and imported as an image, so the local
// node pulls nothing.
module gmsa-webhooks/infra/local/pause

go 1.26.0
