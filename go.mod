module github.com/ponderosa-chess/ponderosa

go 1.26.8

require (
	github.com/go-resty/resty/v2 v2.17.2 // indirect
	github.com/joho/godotenv v1.5.1 // indirect
	go.uber.org/goleak v1.3.0 // indirect
	golang.org/x/net v0.43.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/time v0.16.0 // indirect
)
