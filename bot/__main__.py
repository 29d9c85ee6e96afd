from bot.cli.main import run

run()
