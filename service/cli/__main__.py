from service.cli.main import main

main()
