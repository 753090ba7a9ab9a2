module github.com/ponderosa-chess/ponderosa

go 1.26.8

require (
	github.com/go-resty/resty/v2 v2.17.2
	github.com/joho/godotenv v1.5.1
	go.uber.org/goleak v1.3.0
	golang.org/x/time v0.16.0
)

require golang.org/x/net v0.43.0 // indirect
